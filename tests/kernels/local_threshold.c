/* local_threshold.c — a local scalar that the kernel initialises where it declares it, before
 * the region (as PolyBench's correlation does with `eps`), then reads inside the loops in a
 * conditional and in arithmetic: row-wise soft thresholding
 * B[i][j] = |A[i][j]| <= eps ? 0 : A[i][j] - eps·sign(A[i][j]), and row sums of B scaled
 * by eps. */
#include <math.h>

#ifndef N
#define N 10
#endif
#ifndef M
#define M 12
#endif
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void kernel_local_threshold(int n, int m, DATA_TYPE A[N][M], DATA_TYPE B[N][M], DATA_TYPE s[N])
{
  int i, j;
  DATA_TYPE eps = 0.375;
#pragma scop
  for (i = 0; i < n; i++) {
    s[i] = 0.0;
    for (j = 0; j < m; j++) {
      B[i][j] = fabs(A[i][j]) <= eps ? 0.0 : (A[i][j] > 0.0 ? A[i][j] - eps : A[i][j] + eps);
      s[i] = s[i] + eps * B[i][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][M], B[N][M], s[N];
  kernel_local_threshold(N, M, A, B, s);
  return 0;
}
