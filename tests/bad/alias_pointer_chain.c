/* expect 20:36 arrays `A` and `B` may overlap: both arguments point into `A` */
#define N 16

void kernel_alias_pointer_chain(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] + 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  int n = N;
  double *p = A;
  double *q;
  q = p + 2;
  kernel_alias_pointer_chain(n, A, q);
  return 0;
}
