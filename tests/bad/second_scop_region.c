/* expect 12:1 a second `#pragma scop` region */
#define N 16

void kernel_second_scop_region(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
  A[0] = 0.0;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_second_scop_region(N, A);
  return 0;
}
