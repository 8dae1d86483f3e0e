/* softmax.c — numerically stable row-wise softmax of an M x N matrix:
 * Y[i][j] = exp(X[i][j] - max_k X[i][k]) / sum_k exp(X[i][k] - max_k X[i][k]). */
#include <math.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 12
#endif
#ifndef N
#define N 16
#endif

void kernel_softmax(int m, int n, DATA_TYPE X[M][N], DATA_TYPE Y[M][N])
{
  int i, j;
  DATA_TYPE mx, s;
#pragma scop
  for (i = 0; i < m; i++) {
    mx = X[i][0];
    for (j = 1; j < n; j++)
      mx = fmax(mx, X[i][j]);
    s = 0.0;
    for (j = 0; j < n; j++) {
      Y[i][j] = exp(X[i][j] - mx);
      s += Y[i][j];
    }
    for (j = 0; j < n; j++)
      Y[i][j] = Y[i][j] / s;
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE X[M][N], Y[M][N];
  kernel_softmax(M, N, X, Y);
  return 0;
}
