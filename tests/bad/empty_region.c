/* expect 7:1 the kernel region contains no assignment */
#define N 16

void kernel_empty_region(int n, double A[N])
{
  int i;
#pragma scop
#pragma endscop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
}

int main(void)
{
  static double A[N];
  kernel_empty_region(N, A);
  return 0;
}
