/* syr2k.c — symmetric rank-2k update on the lower triangle of C:
 *   C := alpha*A*B^T + alpha*B*A^T + beta*C  (C is N x N, A and B are N x M). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 12
#endif
#ifndef M
#define M 10
#endif

void kernel_syr2k(int n, int m, DATA_TYPE alpha, DATA_TYPE beta,
                  DATA_TYPE C[N][N], DATA_TYPE A[N][M], DATA_TYPE B[N][M])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * (A[i][k] * B[j][k] + B[i][k] * A[j][k]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE C[N][N], A[N][M], B[N][M];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_syr2k(N, M, alpha, beta, C, A, B);
  return 0;
}
