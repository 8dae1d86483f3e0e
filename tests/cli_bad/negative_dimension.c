#define N 8
void kernel_negdim(int n, double A[-3])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_negdim(N, A); return 0; }
