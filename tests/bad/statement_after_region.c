/* expect 12:3 this statement is after the `#pragma scop` region, so it would not be compiled */
#define N 8

void kernel_statement_after_region(int n, double A[N], double B[N])
{
  int i;

#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] * 2.0;
#pragma endscop
  B[0] = 1.0;
}

int main(void)
{
  static double A[N], B[N];
  kernel_statement_after_region(N, A, B);
  return 0;
}
