/* expect 9:5 `switch` statements are not supported */
#define N 16

void kernel_switch_statement(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    switch (i) {
    default:
      A[i] = 0.0;
    }
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_switch_statement(N, A);
  return 0;
}
