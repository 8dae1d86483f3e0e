/* expect 10:12 `pow` takes 2 argument(s), 1 given */
#include <math.h>
#define N 16

void kernel_math_arity(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = pow(B[i]);
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_math_arity(N, A, B);
  return 0;
}
