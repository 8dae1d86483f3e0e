/* expect 10:5 expected `;` after the expression, found `B` */
#define N 16

void kernel_missing_semicolon(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 0.0
    B[i] = 1.0;
  }
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_missing_semicolon(N, A, B);
  return 0;
}
