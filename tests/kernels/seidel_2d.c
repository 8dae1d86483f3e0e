/* seidel_2d.c — Gauss-Seidel smoothing in place on an N x N grid: every interior point
 * becomes the mean of its 3 x 3 neighbourhood, using already-updated neighbours (above and
 * to the left) within the same sweep; TSTEPS sweeps. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef TSTEPS
#define TSTEPS 4
#endif
#ifndef N
#define N 14
#endif

void kernel_seidel_2d(int tsteps, int n, DATA_TYPE A[N][N])
{
  int t, i, j;
#pragma scop
  for (t = 0; t <= tsteps - 1; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N];
  kernel_seidel_2d(TSTEPS, N, A);
  return 0;
}
