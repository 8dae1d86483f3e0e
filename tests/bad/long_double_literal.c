/* expect 9:12 `long double` literals are not supported */
#define N 16

void kernel_long_double_literal(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.5L * B[i];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_long_double_literal(N, A, B);
  return 0;
}
