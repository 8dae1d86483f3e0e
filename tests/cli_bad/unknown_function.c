#define N 8
void kernel_call(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = frobnicate(A[i]);
#pragma endscop
}
int main(void) { static double A[N]; kernel_call(N, A); return 0; }
