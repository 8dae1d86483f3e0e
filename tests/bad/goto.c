/* expect 10:7 `goto` */
#define N 16

void kernel_goto(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i == n / 2)
      goto done;
    A[i] = 0.0;
  }
#pragma endscop
done:
  ;
}

int main(void)
{
  static double A[N];
  kernel_goto(N, A);
  return 0;
}
