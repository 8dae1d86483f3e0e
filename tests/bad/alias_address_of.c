/* expect 17:33 arrays `A` and `B` may overlap: both arguments point into `A` */
#define N 16

void kernel_alias_address_of(int n, double A[N], double B[N])
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
  kernel_alias_address_of(n, A, &A[0]);
  return 0;
}
