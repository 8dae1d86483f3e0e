/* gemver.c — rank-2 update then two matrix-vector products:
 *   A := A + u1*v1^T + u2*v2^T;  x := x + beta*A^T*y + z;  w := w + alpha*A*x. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 16
#endif

void kernel_gemver(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[N][N],
                   DATA_TYPE u1[N], DATA_TYPE v1[N], DATA_TYPE u2[N], DATA_TYPE v2[N],
                   DATA_TYPE w[N], DATA_TYPE x[N], DATA_TYPE y[N], DATA_TYPE z[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++)
      x[j] += beta * A[i][j] * y[i];
  for (i = 0; i < n; i++)
    x[i] += z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] += alpha * A[i][j] * x[j];
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N], z[N];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_gemver(N, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  return 0;
}
