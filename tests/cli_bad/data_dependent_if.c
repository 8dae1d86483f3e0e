#define N 8
void kernel_ddif(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] > 0.0)
      A[i] = 0.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_ddif(N, A); return 0; }
