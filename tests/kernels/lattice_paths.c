/* lattice_paths.c — weighted monotone lattice-path sums in 64-bit integers (long arrays):
 * P[i][j] = P[i-1][j] + P[i][j-1] + W[i][j] for i, j >= 1, with row 0 and column 0 of P
 * taken from W. The counts grow like binomial(i+j, i), beyond the range of int. */
#ifndef N
#define N 16
#endif

void kernel_lattice_paths(int n, long W[N][N], long P[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    P[i][0] = W[i][0];
    P[0][i] = W[0][i];
  }
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      P[i][j] = P[i - 1][j] + P[i][j - 1] + W[i][j];
#pragma endscop
}

int main(void)
{
  static long W[N][N], P[N][N];
  kernel_lattice_paths(N, W, P);
  return 0;
}
