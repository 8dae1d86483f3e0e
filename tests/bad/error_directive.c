/* expect 3:1 #error define the problem size with -DN=... */
#ifndef N
#error define the problem size with -DN=...
#endif

void kernel_error_directive(int n, double A[N])
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
  kernel_error_directive(N, A);
  return 0;
}
