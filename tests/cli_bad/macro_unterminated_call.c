#define N 8
#define F(x, y) ((x) + (y))
void kernel_mcall(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = F(A[i], 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_mcall(N, A); return 0; }
