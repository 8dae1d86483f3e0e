/* covariance.c — sample covariance matrix of M variables over N observations
 * (data is N x M): centre each column on its mean, then
 * cov[i][j] = sum_k data[k][i]*data[k][j] / (N - 1) for j >= i, mirrored to cov[j][i].
 * float_n is N as a floating value. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 12
#endif
#ifndef N
#define N 16
#endif

void kernel_covariance(int m, int n, DATA_TYPE float_n, DATA_TYPE data[N][M],
                       DATA_TYPE cov[M][M], DATA_TYPE mean[M])
{
  int i, j, k;
#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= float_n - 1.0;
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE data[N][M], cov[M][M], mean[M];
  DATA_TYPE float_n = (DATA_TYPE)N;
  kernel_covariance(M, N, float_n, data, cov, mean);
  return 0;
}
