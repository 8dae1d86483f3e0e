#define N 8
void kernel_prod(int n, double A[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][i * j % N] = 1.0;
#pragma endscop
}
int main(void) { static double A[N][N]; kernel_prod(N, A); return 0; }
