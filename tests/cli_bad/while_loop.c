#define N 8
void kernel_while(int n, double A[N])
{
  int i;
#pragma scop
  i = 0;
  while (i < n)
    A[i] = 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_while(N, A); return 0; }
