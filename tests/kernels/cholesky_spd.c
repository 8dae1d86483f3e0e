/* cholesky_spd.c — Cholesky factorisation of a matrix made symmetric positive definite:
 * first S := B*B^T + n*I (lower triangle only), then S = L*L^T in place (row by row,
 * up-looking). Unlike cholesky.c this stays finite on arbitrary inputs B. */
#include <math.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 14
#endif

void kernel_cholesky_spd(int n, DATA_TYPE B[N][N], DATA_TYPE S[N][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      S[i][j] = 0.0;
      for (k = 0; k < n; k++)
        S[i][j] += B[i][k] * B[j][k];
    }
  for (i = 0; i < n; i++)
    S[i][i] += (DATA_TYPE)n;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        S[i][j] -= S[i][k] * S[j][k];
      S[i][j] /= S[j][j];
    }
    for (k = 0; k < i; k++)
      S[i][i] -= S[i][k] * S[i][k];
    S[i][i] = sqrt(S[i][i]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE B[N][N], S[N][N];
  kernel_cholesky_spd(N, B, S);
  return 0;
}
