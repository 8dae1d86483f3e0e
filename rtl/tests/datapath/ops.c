/* ops.c — one statement per operator and conversion the datapath generator supports, for
 * rtl/tests/datapath.rs (loaded with DATA_TYPE float and double). Not a meaningful
 * kernel: every statement is simulated alone on random operands. */
#include <math.h>
#include <stdlib.h>
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#define N 8

void kernel_ops(int n, int k5, DATA_TYPE alpha, float fs, double ds, char c[N], char c2[N], int a[N], int b[N],
                long l[N], long m[N], float f[N], float g[N], double d[N], double e[N], DATA_TYPE x[N][N],
                DATA_TYPE z[N][N], char oc[N], int oi[N][N], long ol[N][N], float of[N][N], double od[N][N],
                DATA_TYPE ox[N][N])
{
  int i, j;
  long t;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      /* floating point in DATA_TYPE */
      ox[i][j] = x[i][j] + z[i][j];
      ox[i][j] = x[i][j] - z[i][j];
      ox[i][j] = x[i][j] * z[i][j];
      ox[i][j] = x[i][j] / z[i][j];
      ox[i][j] += alpha * x[i][j] * z[i][j];
      ox[i][j] = -x[i][j] + (x[i][j] - -z[i][j]);
      ox[i][j] = x[i][j] < z[i][j] ? x[i][j] : z[i][j] * 2.0;
      ox[i][j] = (x[i][j] <= z[i][j]) + (x[i][j] > z[i][j]) * 2 + (x[i][j] >= z[i][j]) * 4;
      ox[i][j] = (x[i][j] == z[i][j]) - (x[i][j] != z[i][j]) * 3;
      ox[i][j] = x[i][j] && z[i][j] || !x[i][j];
      ox[i][j] = x[i][j] ? z[i][j] : alpha;
      ox[i][j] = (DATA_TYPE)i * x[i][j] + (DATA_TYPE)(i - j) / (DATA_TYPE)n;
      ox[i][j] = x[i][j] / (1.0 + fabs(z[i][j])) + 0.25;
      ox[i][j] = (DATA_TYPE)3 + alpha * (DATA_TYPE)k5 - (DATA_TYPE)(n * 2);
      /* math functions, both precisions */
      od[i][j] = sqrt(d[i]) + fabs(e[i]);
      of[i][j] = sqrtf(f[i]) - fabsf(g[i]);
      od[i][j] = fmin(d[i], e[i]) + fmax(e[i], d[i]);
      of[i][j] = fminf(f[i], g[i]) * fmaxf(g[i], f[i]) + fs;
      od[i][j] = fmin(f[i], ds) - sqrt(f[i]);
      ox[i][j] = sqrt(x[i][j] * x[i][j] + z[i][j] * z[i][j]);
      /* conversions */
      od[i][j] = f[i];
      of[i][j] = d[i];
      oi[i][j] = d[i];
      oi[i][j] = f[i];
      ol[i][j] = d[i] + f[i];
      ol[i][j] = (long)f[i] + (int)d[i];
      oc[i] = d[i];
      oc[i] = f[i] * 3.0f;
      od[i][j] = l[i] + a[i] + c[i];
      of[i][j] = l[i];
      of[i][j] = a[i] * 1.5f;
      od[i][j] = (double)c[i] + (float)c2[i];
      oi[i][j] = c[i] * c2[i] + l[i];
      oc[i] = a[i] + c[i];
      ol[i][j] = a[i] * b[i];
      /* integers */
      oi[i][j] = a[i] + b[i] - c[i];
      oi[i][j] = a[i] * b[i] + i * j;
      oi[i][j] = a[i] / b[i] + a[i] % b[i];
      oi[i][j] = a[i] / 7 - a[i] % -3;
      oi[i][j] = (a[i] & b[i]) | (a[i] ^ ~b[i]);
      oi[i][j] = (a[i] << b[i]) + (a[i] >> c[i]) + (c[i] << 3);
      oi[i][j] = (a[i] < b[i]) + (a[i] <= b[i]) * 2 + (a[i] > b[i]) * 4 + (a[i] >= b[i]) * 8;
      oi[i][j] = (a[i] == b[i]) + (a[i] != b[i]) * 2 + !a[i] * 4 + (a[i] && c[i]) * 8 + (b[i] || c[i]) * 16;
      oi[i][j] = a[i] > b[i] ? a[i] - b[i] : -a[i];
      oi[i][j] = abs(a[i]) + abs(b[i] - c[i]);
      oi[i][j] = (i - j) * k5 + n - a[i] / k5;
      oi[i][j] += 1;
      ol[i][j] = l[i] + m[i] * l[i] - m[i];
      ol[i][j] = l[i] / m[i] - l[i] % m[i];
      ol[i][j] = (l[i] << a[i]) ^ (l[i] >> m[i]) ^ (l[i] & ~m[i]) ^ (l[i] | a[i]);
      ol[i][j] = (l[i] < m[i]) + (l[i] == a[i]) + (l[i] >= 0) * 4 + (l[i] ? 8 : m[i]);
      ol[i][j] = -l[i] + (long)i * j;
      oc[i] = c[i] + c2[i];
      oc[i] = c[i] * 2 - (c2[i] >> 1);
      oc[i] = (char)(c[i] / c2[i]) + c[i] % c2[i];
      ox[i][j] = i < j ? x[i][j] : (DATA_TYPE)a[i];
      ox[i][j] = 7;
      ox[i][j] = z[i][j];
      ox[i][j] = n + k5;
    }
  for (t = 0; t < n; t++) {
    ol[t][t] = t * l[t] - (t << 40);
    od[t][t] = t + d[t] * (double)t;
    oi[t][t] = t / (a[t] | 1);
  }
#pragma endscop
}

int main(void)
{
  static char c[N], c2[N], oc[N];
  static int a[N], b[N], oi[N][N];
  static long l[N], m[N], ol[N][N];
  static float f[N], g[N], of[N][N];
  static double d[N], e[N], od[N][N];
  static DATA_TYPE x[N][N], z[N][N], ox[N][N];
  DATA_TYPE alpha = 1.5;
  float fs = 2.5f;
  double ds = -0.75;
  kernel_ops(N, 5, alpha, fs, ds, c, c2, a, b, l, m, f, g, d, e, x, z, oc, oi, ol, of, od, ox);
  return 0;
}
