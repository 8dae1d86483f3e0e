#define N 8
void kernel_oobr(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i + 3];
#pragma endscop
}
int main(void) { static double A[N], B[N]; kernel_oobr(N, A, B); return 0; }
