/* heat_3d.c — explicit heat equation on an N x N x N grid (7-point Laplacian, coefficient
 * 1/8 per axis), TSTEPS steps ping-ponging between A and B; the boundary is fixed. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef TSTEPS
#define TSTEPS 4
#endif
#ifndef N
#define N 10
#endif

void kernel_heat_3d(int tsteps, int n, DATA_TYPE A[N][N][N], DATA_TYPE B[N][N][N])
{
  int t, i, j, k;
#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = A[i][j][k]
                       + 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                       + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                       + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = B[i][j][k]
                       + 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                       + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                       + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N][N], B[N][N][N];
  kernel_heat_3d(TSTEPS, N, A, B);
  return 0;
}
