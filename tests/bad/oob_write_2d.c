/* expect 10:7 access out of bounds: subscript 2 of `A` takes 1..8 here, but `A` is declared `A[8][8]` */
#define N 8

void kernel_oob_write_2d(int n, double A[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j + 1] = 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N];
  kernel_oob_write_2d(N, A);
  return 0;
}
