/* row_sweeps.c — for the streamed test: TSTEPS rounds of a forward elimination along each
 * row of U (a tridiagonal solve with constant coefficients: two statements per iteration of
 * the inner loop, both reading the coefficients, scalars computed before the loops), then a
 * backward substitution along the row. Its loop nest is tiled on t alone, so its band is
 * enumerated in program order and piped: the chunks exercise stretches of interleaved
 * statements and of one value from DDR. */
#define TSTEPS 4
#define N 24

void kernel_row_sweeps(int tsteps, int n, double U[N][N], double P[N][N], double Q[N][N])
{
  int t, i, j;
  double a, b;
#pragma scop
  a = 0.25;
  b = 1.0 + 2.0 * a;
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++) {
      P[i][0] = 0.0;
      Q[i][0] = U[i][0];
      for (j = 1; j < n - 1; j++) {
        P[i][j] = a / (b - a * P[i][j - 1]);
        Q[i][j] = (U[j][i] + a * Q[i][j - 1]) / (b - a * P[i][j - 1]);
      }
      U[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        U[i][j] = P[i][j] * U[i][j + 1] + Q[i][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static double U[N][N], P[N][N], Q[N][N];
  kernel_row_sweeps(TSTEPS, N, U, P, Q);
  return 0;
}
