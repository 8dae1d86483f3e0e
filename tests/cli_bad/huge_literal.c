#define N 8
void kernel_lit(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < 99999999999999999999999; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void) { static double A[N]; kernel_lit(N, A); return 0; }
