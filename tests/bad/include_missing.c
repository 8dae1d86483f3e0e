/* expect 2:1 cannot find include file "missing.h" */
#include "missing.h"
#define N 16

void kernel_include_missing(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_include_missing(N, A);
  return 0;
}
