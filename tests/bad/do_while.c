/* expect 8:3 `do … while` loops are not supported */
#define N 16

void kernel_do_while(int n, double A[N])
{
  int i = 0;
#pragma scop
  do {
    A[i] = 0.0;
    i++;
  } while (i < n);
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_do_while(N, A);
  return 0;
}
