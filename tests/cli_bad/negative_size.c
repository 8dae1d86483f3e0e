#define N -5
void kernel_neg(int n, double A[8])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void) { static double A[8]; kernel_neg(N, A); return 0; }
