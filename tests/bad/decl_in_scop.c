/* expect 8:12 declarations are not allowed inside the kernel region */
#define N 16

void kernel_decl_in_scop(int n, double A[N], double B[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double t = A[i] * A[i];
    B[i] = t;
  }
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_decl_in_scop(N, A, B);
  return 0;
}
