/* expect 4:34 `unsigned` types are not supported */
#define N 16

void kernel_unsigned_type(int n, unsigned A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = i;
#pragma endscop
}

int main(void)
{
  static unsigned A[N];
  kernel_unsigned_type(N, A);
  return 0;
}
