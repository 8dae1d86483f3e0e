/* expect 9:5 access out of bounds: the subscript of `B` takes 0..9 here, but `B` is declared `B[8]` */
#define N 8

void kernel_oob_size_mismatch(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i];
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_oob_size_mismatch(10, A, B);
  return 0;
}
