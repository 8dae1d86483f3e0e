/* expect 9:9 condition reads the array `A` (data-dependent control) */
#define N 16

void kernel_data_dependent_if(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] > 0.0)
      B[i] = A[i];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_data_dependent_if(N, A, B);
  return 0;
}
