/* trisolv.c — forward substitution: solve L*x = b for lower-triangular L (N x N). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 20
#endif

void kernel_trisolv(int n, DATA_TYPE L[N][N], DATA_TYPE x[N], DATA_TYPE b[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE L[N][N], x[N], b[N];
  kernel_trisolv(N, L, x, b);
  return 0;
}
