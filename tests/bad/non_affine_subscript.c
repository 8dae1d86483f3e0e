/* expect 10:12 multiplies two non-constant terms */
#define N 16

void kernel_non_affine_subscript(int n, double A[N][N * N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][i * j] = B[i][j];
#pragma endscop
}

int main(void)
{
  static double A[N][N * N], B[N][N];
  kernel_non_affine_subscript(N, A, B);
  return 0;
}
