/* ludcmp.c — solve A*x = b: in-place LU factorisation of A without pivoting (Doolittle,
 * row by row, using a scratch scalar), then forward substitution L*y = b (unit lower L)
 * and back substitution U*x = y (rows processed bottom-up). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 16
#endif

void kernel_ludcmp(int n, DATA_TYPE A[N][N], DATA_TYPE b[N], DATA_TYPE x[N], DATA_TYPE y[N])
{
  int i, j, k;
  DATA_TYPE w;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], b[N], x[N], y[N];
  kernel_ludcmp(N, A, b, x, y);
  return 0;
}
