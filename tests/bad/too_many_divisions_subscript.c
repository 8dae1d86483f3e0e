/* expect 9:14 this subscript holds 8 divisions or remainders; at most 4 are supported */
#define N 8

void kernel_too_many_divisions_subscript(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[((((((((i + 99) / 2) / 2) / 2) / 2) / 2) / 2) / 2) % 8];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_too_many_divisions_subscript(N, A, B);
  return 0;
}
