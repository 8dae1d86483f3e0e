/* expect 9:12 pointer dereference */
#define N 16

void kernel_pointer_deref(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = *(B + i);
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_pointer_deref(N, A, B);
  return 0;
}
