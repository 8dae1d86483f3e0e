/* expect 17:25 may overlap: both arguments point into `A` */
#define N 16

void kernel_aliasing(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    B[i] = A[i - 1] + 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  int n = N;
  kernel_aliasing(n, A, A);
  return 0;
}
