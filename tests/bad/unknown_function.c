/* expect 11:12 call to `foo` is not supported */
#define N 16

double foo(double x) { return 2.0 * x; }

void kernel_unknown_function(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = foo(B[i]);
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_unknown_function(N, A, B);
  return 0;
}
