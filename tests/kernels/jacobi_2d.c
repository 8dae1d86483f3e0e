/* jacobi_2d.c — 5-point Jacobi smoothing on an N x N grid, TSTEPS sweeps, ping-ponging
 * between A and B; boundary rows/columns are never written. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef TSTEPS
#define TSTEPS 5
#endif
#ifndef N
#define N 14
#endif

void kernel_jacobi_2d(int tsteps, int n, DATA_TYPE A[N][N], DATA_TYPE B[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], B[N][N];
  kernel_jacobi_2d(TSTEPS, N, A, B);
  return 0;
}
