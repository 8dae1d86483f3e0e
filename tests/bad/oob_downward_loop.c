/* expect 9:5 access out of bounds: the subscript of `A` takes 0..8 here, but `A` is declared `A[8]` */
#define N 8

void kernel_oob_downward_loop(int n, double A[N])
{
  int i;
#pragma scop
  for (i = n; i >= 0; i--)
    A[i] = 1.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_oob_downward_loop(N, A);
  return 0;
}
