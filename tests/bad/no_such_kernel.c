/* expect - no function named `kernel_nope` [--kernel kernel_nope] */
#define N 16

void kernel_no_such_kernel(int n, double A[N])
{
  int i;
  for (i = 0; i < n; i++)
    A[i] = 0.0;
}

int main(void)
{
  static double A[N];
  kernel_no_such_kernel(N, A);
  return 0;
}
