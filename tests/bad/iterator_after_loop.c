/* expect 10:5 iterator */
#define N 16

void kernel_iterator_after_loop(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n - 1; i++)
    A[i] = 0.0;
  B[i] = 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_iterator_after_loop(N, A, B);
  return 0;
}
