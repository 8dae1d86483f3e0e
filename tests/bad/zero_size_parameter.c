/* expect 4:37 size parameter `n` is 0; sizes must be at least 1 */
#define N 16

void kernel_zero_size_parameter(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_zero_size_parameter(0, A);
  return 0;
}
