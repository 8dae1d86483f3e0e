/* expect 8:22 the loop step must be `i++` or `i--` */
#define N 16

void kernel_non_unit_step(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i += 2)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_non_unit_step(N, A);
  return 0;
}
