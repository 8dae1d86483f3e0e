/* jacobi_2d_int.c — integer 5-point averaging stencil on an N x N int grid, TSTEPS sweeps
 * ping-ponging between A and B; the mean uses C integer division (truncation toward zero). */
#ifndef TSTEPS
#define TSTEPS 4
#endif
#ifndef N
#define N 14
#endif

void kernel_jacobi_2d_int(int tsteps, int n, int A[N][N], int B[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) / 5;
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = (B[i][j] + B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]) / 5;
  }
#pragma endscop
}

int main(void)
{
  static int A[N][N], B[N][N];
  kernel_jacobi_2d_int(TSTEPS, N, A, B);
  return 0;
}
