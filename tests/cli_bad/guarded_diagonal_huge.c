/* A diagonal picked out of a 10^6 x 10^6 square by a guard: a million instances, but a
 * trillion loop iterations to walk; refused at once rather than walked for hours. */
#define N 1000000
void kernel_diagonal(int n, double A[N], double B[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (i == j)
        B[i] = 2.0 * A[j];
#pragma endscop
}
int main(void) { static double A[N], B[N]; kernel_diagonal(N, A, B); return 0; }
