/* atax.c — y := A^T * (A * x), via t := A*x (A is M x N). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef M
#define M 14
#endif
#ifndef N
#define N 16
#endif

void kernel_atax(int m, int n, DATA_TYPE A[M][N], DATA_TYPE x[N], DATA_TYPE y[N],
                 DATA_TYPE t[M])
{
  int i, j;
#pragma scop
  for (j = 0; j < n; j++)
    y[j] = 0.0;
  for (i = 0; i < m; i++) {
    t[i] = 0.0;
    for (j = 0; j < n; j++)
      t[i] += A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] += A[i][j] * t[i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[M][N], x[N], y[N], t[M];
  kernel_atax(M, N, A, x, y, t);
  return 0;
}
