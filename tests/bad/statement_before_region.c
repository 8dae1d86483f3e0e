/* expect 8:3 this statement is before the `#pragma scop` region, so it would not be compiled */
#define N 8

void kernel_statement_before_region(int n, double A[N], double B[N])
{
  int i;
  double s;
  s = 2.0;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] * s;
#pragma endscop

}

int main(void)
{
  static double A[N], B[N];
  kernel_statement_before_region(N, A, B);
  return 0;
}
