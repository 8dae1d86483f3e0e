/* expect 8:8 loop iterator `x` has a floating-point type */
#define N 16

void kernel_float_iterator(int n, double A[N])
{
  double x;
#pragma scop
  for (x = 0; x < n; x++)
    A[0] = A[0] + x;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_float_iterator(N, A);
  return 0;
}
