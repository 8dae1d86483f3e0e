/* 3mm.c — three matrix products: E := A*B;  F := C*D;  G := E*F.
 * A is NI x NK, B is NK x NJ, C is NJ x NM, D is NM x NL; E is NI x NJ, F is NJ x NL,
 * G is NI x NL. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef NI
#define NI 8
#endif
#ifndef NJ
#define NJ 10
#endif
#ifndef NK
#define NK 12
#endif
#ifndef NL
#define NL 14
#endif
#ifndef NM
#define NM 16
#endif

void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                DATA_TYPE E[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ],
                DATA_TYPE F[NJ][NL], DATA_TYPE C[NJ][NM], DATA_TYPE D[NM][NL],
                DATA_TYPE G[NI][NL])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < nk; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < nm; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < nj; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE E[NI][NJ], A[NI][NK], B[NK][NJ], F[NJ][NL], C[NJ][NM], D[NM][NL],
      G[NI][NL];
  kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
  return 0;
}
