/* expect 8:3 a `for` loop without a condition is unbounded */
#define N 16

void kernel_loop_without_condition(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; ; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_loop_without_condition(N, A);
  return 0;
}
