#define N 2000000000
void kernel_huge(int n, double A[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = 1.0;
#pragma endscop
}
int main(void) { static double A[N][N]; kernel_huge(N, A); return 0; }
