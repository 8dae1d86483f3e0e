/* gemm.c — C := alpha*A*B + beta*C (general matrix multiply, C is NI x NJ). */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef NI
#define NI 12
#endif
#ifndef NJ
#define NJ 14
#endif
#ifndef NK
#define NK 16
#endif

void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                 DATA_TYPE C[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      C[i][j] = beta * C[i][j];
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}

int main(void)
{
  static DATA_TYPE C[NI][NJ], A[NI][NK], B[NK][NJ];
  DATA_TYPE alpha = 1.5, beta = 1.2;
  kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);
  return 0;
}
