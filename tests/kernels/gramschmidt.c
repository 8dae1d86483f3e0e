/* gramschmidt.c — QR decomposition by modified Gram-Schmidt: A (M x N, M >= N) is
 * consumed column by column; Q (M x N) gets orthonormal columns, R (N x N) is upper
 * triangular with A = Q*R. */
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

void kernel_gramschmidt(int m, int n, DATA_TYPE A[M][N], DATA_TYPE R[N][N], DATA_TYPE Q[M][N])
{
  int i, j, k;
  DATA_TYPE nrm;
#pragma scop
  for (k = 0; k < n; k++) {
    nrm = 0.0;
    for (i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[M][N], R[N][N], Q[M][N];
  kernel_gramschmidt(M, N, A, R, Q);
  return 0;
}
