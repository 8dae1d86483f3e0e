/* expect 8:8 loop iterator `x` has a floating-point type */
#define N 16

void kernel_float_iterator_outside(int n, double A[N])
{
  double x;
#pragma scop
  for (x = 0; x < n; x++)
    A[0] = A[0] + x / 2;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_float_iterator_outside(N, A);
  return 0;
}
