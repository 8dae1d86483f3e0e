#define N 8
#define X X + 1
void kernel_self(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = X;
#pragma endscop
}
int main(void) { static double A[N]; kernel_self(N, A); return 0; }
