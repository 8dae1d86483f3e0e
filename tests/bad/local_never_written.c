/* expect 7:10 the local `scale` is read but never written, so it has no value */
#define N 8

void kernel_local_never_written(int n, double A[N], double B[N])
{
  int i;
  double scale;
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = A[i] * scale;
#pragma endscop

}

int main(void)
{
  static double A[N], B[N];
  kernel_local_never_written(N, A, B);
  return 0;
}
