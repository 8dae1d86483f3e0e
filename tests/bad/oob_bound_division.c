/* expect 9:5 access out of bounds: the subscript of `A` takes 0..9 here, but `A` is declared `A[8]` */
#define N 8

void kernel_oob_bound_division(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < (n + 12) / 2; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_oob_bound_division(N, A);
  return 0;
}
