#define N 8
void kernel_param_changed_after_call_in_loop(int n, double A[N])
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
  int n = 2, t;
  for (t = 0; t < 3; t++) {
    kernel_param_changed_after_call_in_loop(n, A);
    n = n * 2;
  }
  return 0;
}
