/* expect 8:15 this comparison holds 7 divisions or remainders; at most 4 are supported */
#define N 8

void kernel_too_many_divisions_bound(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n / 2 + n / 3 + n / 5 + n / 7 + n / 11 + n / 13 + n / 17; i++)
    A[i] = 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_too_many_divisions_bound(N, A);
  return 0;
}
