/* Two 65536 x 65536 arrays (4.3 billion elements each) of which a 4 x 4 loop touches 16:
 * building, reporting and generating follow the 16 accesses; running the interpreter would
 * need the whole arrays in memory, and is refused up front. */
#define N 65536
void kernel_huge_arrays(int n, double A[N][N], double B[N][N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = A[i][j] * 2.0;
#pragma endscop
}
int main(void) { static double A[N][N], B[N][N]; kernel_huge_arrays(4, A, B); return 0; }
