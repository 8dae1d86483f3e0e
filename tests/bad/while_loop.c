/* expect 8:3 `while` loops are not supported */
#define N 16

void kernel_while_loop(int n, double A[N])
{
  int i = 0;
#pragma scop
  while (i < n) {
    A[i] = 0.0;
    i++;
  }
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_while_loop(N, A);
  return 0;
}
