/* expect 9:21 multiplies two non-constant terms */
#define N 16

void kernel_non_affine_bound(int n, double A[N][N * N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i * i; j++)
      A[i][j] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N * N];
  kernel_non_affine_bound(N, A);
  return 0;
}
