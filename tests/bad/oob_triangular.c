/* expect 10:17 access out of bounds: the subscript of `A` takes 1..8 here, but `A` is declared `A[8]` */
#define N 8

void kernel_oob_triangular(int n, double A[N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++)
      B[i][j] = A[j + 1];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N][N];
  kernel_oob_triangular(N, A, B);
  return 0;
}
