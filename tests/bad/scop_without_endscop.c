/* expect 7:1 `#pragma scop` without a matching `#pragma endscop` */
#define N 16

void kernel_scop_without_endscop(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
}

int main(void)
{
  static double A[N];
  kernel_scop_without_endscop(N, A);
  return 0;
}
