/* prefix_sum.c — integer summed-area table (2-d inclusive prefix sum) of an int matrix:
 * S[i][j] = sum of A[p][q] over p <= i, q <= j, by the recurrence
 * S[i][j] = A[i][j] + S[i-1][j] + S[i][j-1] - S[i-1][j-1] (first row/column separately). */
#ifndef N
#define N 16
#endif
#ifndef M
#define M 18
#endif

void kernel_prefix_sum(int n, int m, int A[N][M], int S[N][M])
{
  int i, j;
#pragma scop
  S[0][0] = A[0][0];
  for (j = 1; j < m; j++)
    S[0][j] = S[0][j - 1] + A[0][j];
  for (i = 1; i < n; i++) {
    S[i][0] = S[i - 1][0] + A[i][0];
    for (j = 1; j < m; j++)
      S[i][j] = A[i][j] + S[i - 1][j] + S[i][j - 1] - S[i - 1][j - 1];
  }
#pragma endscop
}

int main(void)
{
  static int A[N][M], S[N][M];
  kernel_prefix_sum(N, M, A, S);
  return 0;
}
