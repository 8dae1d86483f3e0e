/* expect 5:62 dimension of `A` is not a constant */
#include <stdlib.h>
#define N 16

void kernel_non_constant_dimension(int n, int m, double A[N][m])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = 0.0;
#pragma endscop
}

int main(int argc, char **argv)
{
  int m = argc > 1 ? atoi(argv[1]) : 8;
  static double A[N][64];
  kernel_non_constant_dimension(N, m, A);
  return 0;
}
