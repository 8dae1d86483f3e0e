/* lu.c — in-place LU factorisation without pivoting (right-looking Gaussian elimination):
 * afterwards the strictly lower part of A holds L (unit diagonal implied) and the upper
 * part holds U, with A = L*U. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 16
#endif

void kernel_lu(int n, DATA_TYPE A[N][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++) {
    for (i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N];
  kernel_lu(N, A);
  return 0;
}
