/* expect 19:34 arrays `A` and `B` may overlap: both arguments point into `A` */
#define N 16

void kernel_alias_row_pointer(int n, double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = A[i][j] * 2.0;
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N];
  int n = N;
  double (*rows)[N] = &A[1];
  kernel_alias_row_pointer(n, A, rows);
  return 0;
}
