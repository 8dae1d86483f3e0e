/* expect 9:19 `x` is not declared */
#define N 16

void kernel_undeclared_variable(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] * x;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_undeclared_variable(N, A, B);
  return 0;
}
