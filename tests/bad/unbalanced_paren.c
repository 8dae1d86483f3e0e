/* expect 9:29 expected `)` */
#define N 16

void kernel_unbalanced_paren(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = (B[i] + 1.0 * 2.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_unbalanced_paren(N, A, B);
  return 0;
}
