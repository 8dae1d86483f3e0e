#define N 8
void kernel_unsigned(int n, unsigned short A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] + 1;
#pragma endscop
}
int main(void) { static unsigned short A[N]; kernel_unsigned(N, A); return 0; }
