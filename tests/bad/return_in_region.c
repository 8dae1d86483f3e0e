/* expect 10:7 `return` */
#define N 16

void kernel_return_in_region(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i == n / 2)
      return;
    A[i] = 0.0;
  }
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_return_in_region(N, A);
  return 0;
}
