/* cholesky.c — in-place Cholesky factorisation A = L*L^T (left-looking, column by column);
 * the lower triangle of A is overwritten by L, the strict upper triangle is not touched.
 * On a matrix that is not symmetric positive definite the square roots produce NaN. */
#include <math.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 16
#endif

void kernel_cholesky(int n, DATA_TYPE A[N][N])
{
  int i, j, k;
#pragma scop
  for (j = 0; j < n; j++) {
    for (k = 0; k < j; k++)
      A[j][j] -= A[j][k] * A[j][k];
    A[j][j] = sqrt(A[j][j]);
    for (i = j + 1; i < n; i++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] = A[i][j] / A[j][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N];
  kernel_cholesky(N, A);
  return 0;
}
