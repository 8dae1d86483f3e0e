/* expect 9:9 this comparison holds 7 divisions or remainders; at most 4 are supported */
#define N 8

void kernel_too_many_divisions_guard(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (i / 2 + i / 3 + i / 4 + i / 5 < i % 2 + i % 3 + i % 5)
      A[i] = 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_too_many_divisions_guard(N, A);
  return 0;
}
