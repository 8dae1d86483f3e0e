/* expect 9:15 comma operators */
#define N 16

void kernel_comma_operator(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0, B[i] = 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_comma_operator(N, A, B);
  return 0;
}
