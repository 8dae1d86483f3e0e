#include "no_such_header.h"
#define N 8
void kernel_inc(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_inc(N, A); return 0; }
