/* expect 9:10 loop iterator `i` is already the iterator of an enclosing loop */
#define N 16

void kernel_same_iterator_nested(int n, double A[N][N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    for (i = 0; i < n; i++)
      A[i][i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N];
  kernel_same_iterator_nested(N, A);
  return 0;
}
