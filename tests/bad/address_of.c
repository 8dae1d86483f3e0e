/* expect 9:19 address-of operators */
#define N 16

void kernel_address_of(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] + &B[i] - &B[0];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_address_of(N, A, B);
  return 0;
}
