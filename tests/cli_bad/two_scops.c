#define N 8
void kernel_two(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_two(N, A); return 0; }
