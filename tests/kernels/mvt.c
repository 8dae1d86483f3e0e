/* mvt.c — two matrix-vector products with A and its transpose:
 *   x1 := x1 + A*y1;  x2 := x2 + A^T*y2. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 18
#endif

void kernel_mvt(int n, DATA_TYPE x1[N], DATA_TYPE x2[N], DATA_TYPE y1[N], DATA_TYPE y2[N],
                DATA_TYPE A[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] += A[i][j] * y1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] += A[j][i] * y2[j];
#pragma endscop
}

int main(void)
{
  static DATA_TYPE x1[N], x2[N], y1[N], y2[N], A[N][N];
  kernel_mvt(N, x1, x2, y1, y2, A);
  return 0;
}
