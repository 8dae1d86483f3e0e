/* expect 7:17 array initialisers are not supported */
#define N 8

void kernel_local_array_initialiser(int n, double A[N], double B[N])
{
  int i;
  double w[2] = {0.5, 0.25};
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] * w[1];
#pragma endscop

}

int main(void)
{
  static double A[N], B[N];
  kernel_local_array_initialiser(N, A, B);
  return 0;
}
