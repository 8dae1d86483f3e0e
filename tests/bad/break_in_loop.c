/* expect 10:7 `break` */
#define N 16

void kernel_break_in_loop(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i == n / 2)
      break;
    A[i] = 0.0;
  }
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_break_in_loop(N, A);
  return 0;
}
