/* expect 9:12 `%` needs integer operands */
#define N 16

void kernel_float_remainder(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] % 2.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_float_remainder(N, A, B);
  return 0;
}
