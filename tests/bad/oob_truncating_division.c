/* expect 9:12 access out of bounds: the subscript of `A` takes -4..-1 here, but `A` is declared `A[8]` */
#define N 8

void kernel_oob_truncating_division(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[(i - 9) / 2];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_oob_truncating_division(N, A, B);
  return 0;
}
