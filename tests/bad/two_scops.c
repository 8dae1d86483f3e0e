/* expect 13:6 more than one function holds a `#pragma scop` region */
#define N 16

void kernel_two_scops(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}

void kernel_other(int n, double A[N])
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
  kernel_two_scops(N, A);
  kernel_other(N, A);
  return 0;
}
