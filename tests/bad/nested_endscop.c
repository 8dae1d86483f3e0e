/* expect 11:1 `#pragma endscop` must be at the top level */
#define N 16

void kernel_nested_endscop(int n, double A[N])
{
  int i;
#pragma scop
  {
    for (i = 0; i < n; i++)
      A[i] = 0.0;
#pragma endscop
  }
}

int main(void)
{
  static double A[N];
  kernel_nested_endscop(N, A);
  return 0;
}
