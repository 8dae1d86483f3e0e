/* expect - no `#pragma scop` region found */
#define N 16

void kernel_no_scop(int n, double A[N])
{
  int i;
  for (i = 0; i < n; i++)
    A[i] = 0.0;
}

int main(void)
{
  static double A[N];
  kernel_no_scop(N, A);
  return 0;
}
