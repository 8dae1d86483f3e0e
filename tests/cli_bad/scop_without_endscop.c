#define N 8
void kernel_open(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
}
int main(void) { static double A[N]; kernel_open(N, A); return 0; }
