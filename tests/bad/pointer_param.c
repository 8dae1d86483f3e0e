/* expect 4:42 parameter `A` is a pointer */
#define N 16

void kernel_pointer_param(int n, double *A)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_pointer_param(N, A);
  return 0;
}
