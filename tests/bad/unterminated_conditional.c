/* expect 2:1 unterminated conditional directive */
#ifndef N
#define N 16

void kernel_unterminated_conditional(int n, double A[N])
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
  kernel_unterminated_conditional(N, A);
  return 0;
}
