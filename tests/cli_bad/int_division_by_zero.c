#define N 8
void kernel_div0(int n, int A[N], int B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] / (B[i] - B[i]);
#pragma endscop
}
int main(void) { static int A[N], B[N]; kernel_div0(N, A, B); return 0; }
