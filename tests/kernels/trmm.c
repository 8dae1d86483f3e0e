/* trmm.c — triangular matrix multiply, in place: B := alpha * L^T * B, where L (M x M) is
 * unit lower triangular (only its strictly lower part is read) and B is M x N.
 * Row i of the result needs rows k >= i of the old B, so rows are updated top-down. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 14
#endif
#ifndef N
#define N 12
#endif

void kernel_trmm(int m, int n, DATA_TYPE alpha, DATA_TYPE L[M][M], DATA_TYPE B[M][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += L[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE L[M][M], B[M][N];
  DATA_TYPE alpha = 1.5;
  kernel_trmm(M, N, alpha, L, B);
  return 0;
}
