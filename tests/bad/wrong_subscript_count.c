/* expect 9:12 `A` has 2 dimension(s) but is used with 1 subscript(s) */
#define N 16

void kernel_wrong_subscript_count(int n, double A[N][N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] + 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N];
  kernel_wrong_subscript_count(N, A, B);
  return 0;
}
