#define N 8
void kernel_param_incremented(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
int main(void)
{
  static double A[N];
  int n = 4;
  n++;
  kernel_param_incremented(n, A);
  return 0;
}
