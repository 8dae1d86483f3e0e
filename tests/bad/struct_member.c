/* expect 6:47 `struct` types are not supported */
#define N 16

struct coeffs { double a, b; };

void kernel_struct_member(int n, double A[N], struct coeffs c)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = c.a * A[i] + c.b;
#pragma endscop
}

int main(void)
{
  static double A[N];
  struct coeffs c = { 2.0, 1.0 };
  kernel_struct_member(N, A, c);
  return 0;
}
