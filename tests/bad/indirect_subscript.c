/* expect 9:14 subscript reads the array `idx` (indirect access) */
#define N 16

void kernel_indirect_subscript(int n, double A[N], double B[N], int idx[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[idx[i]];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  static int idx[N];
  kernel_indirect_subscript(N, A, B, idx);
  return 0;
}
