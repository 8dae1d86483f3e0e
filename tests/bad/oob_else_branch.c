/* expect 12:14 access out of bounds: the subscript of `A` takes -1..-1 here, but `A` is declared `A[8]` */
#define N 8

void kernel_oob_else_branch(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (i > 0)
      B[i] = A[i - 1];
    else
      B[i] = A[i - 1] * 2.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_oob_else_branch(N, A, B);
  return 0;
}
