/* expect 10:17 access out of bounds: subscript 2 of `A` takes -7..7 here, but `A` is declared `A[8][8]` */
#define N 8

void kernel_oob_skewed_read(int n, double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = A[j][i + j - 7];
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N];
  kernel_oob_skewed_read(N, A, B);
  return 0;
}
