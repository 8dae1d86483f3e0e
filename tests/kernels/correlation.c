/* correlation.c — Pearson correlation matrix of M variables over N observations (data is
 * N x M): standardise each column (mean 0, population standard deviation 1; a deviation
 * <= 0.1 is replaced by 1 to avoid blowing up near-constant columns), then
 * corr[i][j] = sum_k data[k][i]*data[k][j], symmetric with unit diagonal. */
#include <math.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 12
#endif
#ifndef N
#define N 14
#endif

void kernel_correlation(int m, int n, DATA_TYPE float_n, DATA_TYPE data[N][M],
                        DATA_TYPE corr[M][M], DATA_TYPE mean[M], DATA_TYPE stddev[M])
{
  int i, j, k;
#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] = sqrt(stddev[j] / float_n);
    stddev[j] = stddev[j] <= 0.1 ? 1.0 : stddev[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (data[i][j] - mean[j]) / (sqrt(float_n) * stddev[j]);
  for (i = 0; i < m; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE data[N][M], corr[M][M], mean[M], stddev[M];
  DATA_TYPE float_n = (DATA_TYPE)N;
  kernel_correlation(M, N, float_n, data, corr, mean, stddev);
  return 0;
}
