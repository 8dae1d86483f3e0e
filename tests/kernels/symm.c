/* symm.c — C := alpha*S*B + beta*C, where S (M x M) is symmetric and only its lower
 * triangle (k <= i) is stored/read: S[i][k] for k < i, S[k][i] for k > i. B, C are M x N. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 12
#endif
#ifndef N
#define N 14
#endif

void kernel_symm(int m, int n, DATA_TYPE alpha, DATA_TYPE beta,
                 DATA_TYPE C[M][N], DATA_TYPE S[M][M], DATA_TYPE B[M][N])
{
  int i, j, k;
  DATA_TYPE acc;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      acc = S[i][i] * B[i][j];
      for (k = 0; k < i; k++)
        acc += S[i][k] * B[k][j];
      for (k = i + 1; k < m; k++)
        acc += S[k][i] * B[k][j];
      C[i][j] = beta * C[i][j] + alpha * acc;
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE C[M][N], S[M][M], B[M][N];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_symm(M, N, alpha, beta, C, S, B);
  return 0;
}
