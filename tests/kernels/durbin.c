/* durbin.c — Levinson-Durbin recursion: solves the Yule-Walker system T*y = -r, where T is
 * the symmetric Toeplitz matrix with first row (1, r[0], ..., r[n-2]). z is scratch. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 18
#endif

void kernel_durbin(int n, DATA_TYPE r[N], DATA_TYPE y[N], DATA_TYPE z[N])
{
  int i, k;
  DATA_TYPE a, b, acc;
#pragma scop
  y[0] = -r[0];
  b = 1.0;
  a = -r[0];
  for (k = 1; k < n; k++) {
    b = (1.0 - a * a) * b;
    acc = 0.0;
    for (i = 0; i < k; i++)
      acc += r[k - i - 1] * y[i];
    a = -(r[k] + acc) / b;
    for (i = 0; i < k; i++)
      z[i] = y[i] + a * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = a;
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE r[N], y[N], z[N];
  kernel_durbin(N, r, y, z);
  return 0;
}
