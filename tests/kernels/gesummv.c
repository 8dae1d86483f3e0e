/* gesummv.c — y := alpha*A*x + beta*B*x (sum of two matrix-vector products). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 18
#endif

void kernel_gesummv(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[N][N],
                    DATA_TYPE B[N][N], DATA_TYPE tmp[N], DATA_TYPE x[N], DATA_TYPE y[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++) {
      tmp[i] += A[i][j] * x[j];
      y[i] += B[i][j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], B[N][N], tmp[N], x[N], y[N];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_gesummv(N, alpha, beta, A, B, tmp, x, y);
  return 0;
}
