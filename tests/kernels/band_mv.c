/* band_mv.c — banded matrix-vector product followed by a 3-point smoothing:
 * y[i] = sum over |j - i| <= bw of A[i][j]*x[j] (band selected by an affine `if`), then
 * z[i] = (y[i-1] + 2*y[i] + y[i+1]) / 4 in the interior and z[i] = y[i] at both ends. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 18
#endif
#ifndef BW
#define BW 3
#endif

void kernel_band_mv(int n, int bw, DATA_TYPE A[N][N], DATA_TYPE x[N], DATA_TYPE y[N],
                    DATA_TYPE z[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < n; j++)
      if (j >= i - bw && j <= i + bw)
        y[i] += A[i][j] * x[j];
  }
  for (i = 0; i < n; i++) {
    if (i >= 1 && i < n - 1)
      z[i] = 0.25 * (y[i - 1] + 2.0 * y[i] + y[i + 1]);
    if (i < 1)
      z[i] = y[i];
    if (i >= n - 1)
      z[i] = y[i];
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][N], x[N], y[N], z[N];
  kernel_band_mv(N, BW, A, x, y, z);
  return 0;
}
