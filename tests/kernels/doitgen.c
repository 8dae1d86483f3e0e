/* doitgen.c — multiresolution-analysis kernel: every (r,q) slice of the 3-d tensor X is
 * multiplied in place by W:  X[r][q][p] := sum_s X[r][q][s] * W[s][p], using a buffer row. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef NR
#define NR 8
#endif
#ifndef NQ
#define NQ 9
#endif
#ifndef NP
#define NP 10
#endif

void kernel_doitgen(int nr, int nq, int np, DATA_TYPE X[NR][NQ][NP], DATA_TYPE W[NP][NP],
                    DATA_TYPE buf[NP])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        buf[p] = 0.0;
        for (s = 0; s < np; s++)
          buf[p] += X[r][q][s] * W[s][p];
      }
      for (p = 0; p < np; p++)
        X[r][q][p] = buf[p];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE X[NR][NQ][NP], W[NP][NP], buf[NP];
  kernel_doitgen(NR, NQ, NP, X, W, buf);
  return 0;
}
