/* expect 9:21 loop bound reads the array `len` (data-dependent control) */
#define N 16

void kernel_data_dependent_bound(int n, double A[N][N], int len[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < len[i]; j++)
      A[i][j] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N];
  static int len[N];
  kernel_data_dependent_bound(N, A, len);
  return 0;
}
