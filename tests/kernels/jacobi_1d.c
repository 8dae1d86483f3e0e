/* jacobi_1d.c — 3-point Jacobi smoothing in 1-d, TSTEPS sweeps, ping-ponging between A and
 * B (each sweep updates the interior of B from A, then the interior of A from B). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef TSTEPS
#define TSTEPS 6
#endif
#ifndef N
#define N 20
#endif

void kernel_jacobi_1d(int tsteps, int n, DATA_TYPE A[N], DATA_TYPE B[N])
{
  int t, i;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
    for (i = 1; i < n - 1; i++)
      A[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0;
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N], B[N];
  int tsteps = TSTEPS, n = N;
  kernel_jacobi_1d(tsteps, n, A, B);
  return 0;
}
