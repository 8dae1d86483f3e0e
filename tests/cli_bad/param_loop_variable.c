#define N 8
void kernel_param_loop_variable(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void)
{
  static double A[N];
  int n;
  for (n = 1; n <= N; n *= 2)
    kernel_param_loop_variable(n, A);
  return 0;
}
