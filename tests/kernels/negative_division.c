/* negative_division.c — C's truncating `/` and `%` where the dividend goes negative, which
 * round toward zero (-5 / 2 == -2, -5 % 4 == -1) and not down: in subscripts, in a loop
 * bound ((n - 20) / 8 + 10 is 10 at n = 16, not 9), in a guard that only a negative
 * remainder satisfies, and in the lower bound and a subscript of a triangular 2-d nest. */
#ifndef N
#define N 16
#endif
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void kernel_negative_division(int n, DATA_TYPE A[N], DATA_TYPE B[N], DATA_TYPE C[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[(i - 5) / 2 + 3] + A[(i - 6) % 4 + 3];
  for (i = 0; i < (n - 20) / 8 + 10; i++)
    B[i] = B[i] * A[i];
  for (i = 0; i < n; i++)
    if ((i - 5) % 4 == -1)
      B[i] = B[i] + 1;
  for (i = 0; i < n; i++)
    for (j = (i - 7) / 3 + 2; j < n; j++)
      C[i][j] = C[i][j] * B[(j - i) / 4 + 3] + B[i];
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N], B[N], C[N][N];
  kernel_negative_division(N, A, B, C);
  return 0;
}
