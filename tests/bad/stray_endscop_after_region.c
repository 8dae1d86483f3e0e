/* expect 11:1 `#pragma endscop` without a matching `#pragma scop` */
#define N 16

void kernel_stray_endscop_after_region(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_stray_endscop_after_region(N, A);
  return 0;
}
