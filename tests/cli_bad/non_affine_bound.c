#define N 8
void kernel_sq(int n, double A[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < i * i; j++)
      A[i] = A[i] + 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_sq(N, A); return 0; }
