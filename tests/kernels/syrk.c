/* syrk.c — symmetric rank-k update on the lower triangle of C:
 *   C := alpha*A*A^T + beta*C  (C is N x N, A is N x M; only entries j <= i are touched). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 14
#endif
#ifndef M
#define M 10
#endif

void kernel_syrk(int n, int m, DATA_TYPE alpha, DATA_TYPE beta,
                 DATA_TYPE C[N][N], DATA_TYPE A[N][M])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (k = 0; k < m; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE C[N][N], A[N][M];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_syrk(N, M, alpha, beta, C, A);
  return 0;
}
