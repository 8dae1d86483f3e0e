/* expect 4:48 dimension of `A` is -4; it must be positive */
#define N 16

void kernel_negative_dimension(int n, double A[N - 20])
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
  kernel_negative_dimension(N, A);
  return 0;
}
