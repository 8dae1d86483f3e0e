#define N 8
void kernel_ptr(int n, double *A)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_ptr(N, A); return 0; }
