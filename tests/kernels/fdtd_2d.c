/* fdtd_2d.c — 2-d finite-difference time-domain (Yee scheme, TE mode) on an NX x NY grid:
 * per step the first row of ey is driven by the source value fict[t], then ey and ex are
 * updated from the curl of hz, and hz from the curl of (ex, ey). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef TMAX
#define TMAX 5
#endif
#ifndef NX
#define NX 12
#endif
#ifndef NY
#define NY 14
#endif

void kernel_fdtd_2d(int tmax, int nx, int ny, DATA_TYPE ex[NX][NY], DATA_TYPE ey[NX][NY],
                    DATA_TYPE hz[NX][NY], DATA_TYPE fict[TMAX])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = fict[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE ex[NX][NY], ey[NX][NY], hz[NX][NY], fict[TMAX];
  kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict);
  return 0;
}
