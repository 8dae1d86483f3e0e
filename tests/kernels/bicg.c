/* bicg.c — the two products of a BiCG step: s := A^T*r and q := A*p (A is N x M). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 16
#endif
#ifndef M
#define M 14
#endif

void kernel_bicg(int n, int m, DATA_TYPE A[N][M], DATA_TYPE s[M], DATA_TYPE q[N],
                 DATA_TYPE p[M], DATA_TYPE r[N])
{
  int i, j;
#pragma scop
  for (j = 0; j < m; j++)
    s[j] = 0.0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] += r[i] * A[i][j];
      q[i] += A[i][j] * p[j];
    }
  }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE A[N][M], s[M], q[N], p[M], r[N];
  kernel_bicg(N, M, A, s, q, p, r);
  return 0;
}
