/* 2mm.c — two chained matrix products: T := alpha*A*B;  D := T*C + beta*D.
 * A is NI x NK, B is NK x NJ, C is NJ x NL, D is NI x NL. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef NI
#define NI 10
#endif
#ifndef NJ
#define NJ 12
#endif
#ifndef NK
#define NK 14
#endif
#ifndef NL
#define NL 16
#endif

void kernel_2mm(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta,
                DATA_TYPE T[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ],
                DATA_TYPE C[NJ][NL], DATA_TYPE D[NI][NL])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      T[i][j] = 0.0;
      for (k = 0; k < nk; k++)
        T[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (k = 0; k < nj; k++)
        D[i][j] += T[i][k] * C[k][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE T[NI][NJ], A[NI][NK], B[NK][NJ], C[NJ][NL], D[NI][NL];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_2mm(NI, NJ, NK, NL, alpha, beta, T, A, B, C, D);
  return 0;
}
