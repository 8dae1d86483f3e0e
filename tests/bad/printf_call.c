/* expect 11:5 a call to `printf` as a statement is not supported */
#include <stdio.h>
#define N 16

void kernel_printf_call(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 2.0 * A[i];
    printf("%f\n", A[i]);
  }
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_printf_call(N, A);
  return 0;
}
