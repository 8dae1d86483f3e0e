/* expect 4:37 `long double` is not supported */
#define N 16

void kernel_long_double_type(int n, long double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static long double A[N];
  kernel_long_double_type(N, A);
  return 0;
}
