/* expect 8:23 iterator */
#define N 16

void kernel_iterator_in_own_bound(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n - i; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_iterator_in_own_bound(N, A);
  return 0;
}
