#define N 8
void kernel_fit(int n, double A[N])
{
  double x;
#pragma scop
  for (x = 0; x < n; x++)
    A[0] = x;
#pragma endscop
}
int main(void) { static double A[N]; kernel_fit(N, A); return 0; }
