/* expect 11:19 loop bound depends on the data variable `m` (data-dependent control) */
#define N 16

void kernel_data_dependent_scalar_bound(int n, double A[N], int m)
{
  int i;
#pragma scop
  m = n - 1;
  for (i = 0; i < n; i++)
    A[i] = 1.0;
  for (i = 0; i < m; i++)
    A[i] = A[i + 1];
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_data_dependent_scalar_bound(N, A, 0);
  return 0;
}
