/* expect 9:17 stray `@` in program */
#define N 16

void kernel_stray_character(int n, double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = B[i] @ 2.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  kernel_stray_character(N, A, B);
  return 0;
}
