/* expect 9:64 dimension of `T` is 0; it must be positive [-DM=0] */
#ifndef N
#define N 16
#endif
#ifndef M
#define M 8
#endif

void kernel_zero_dimension_define(int n, double A[N], double T[M])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N], T[M];
  kernel_zero_dimension_define(N, A, T);
  return 0;
}
