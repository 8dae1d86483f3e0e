/* pnorm.c — row-wise l3 norms and the smallest absolute entry of each row of an M x N
 * matrix: nrm[i] = (sum_j |A[i][j]|^3)^(1/3), lo[i] = min_j |A[i][j]|. */
#include <math.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 14
#endif
#ifndef N
#define N 12
#endif

void kernel_pnorm(int m, int n, DATA_TYPE A[M][N], DATA_TYPE nrm[M], DATA_TYPE lo[M])
{
  int i, j;
  DATA_TYPE s;
#pragma scop
  for (i = 0; i < m; i++) {
    s = 0.0;
    lo[i] = fabs(A[i][0]);
    for (j = 0; j < n; j++) {
      s += pow(fabs(A[i][j]), 3.0);
      lo[i] = fmin(lo[i], fabs(A[i][j]));
    }
    nrm[i] = pow(s, 1.0 / 3.0);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[M][N], nrm[M], lo[M];
  kernel_pnorm(M, N, A, nrm, lo);
  return 0;
}
