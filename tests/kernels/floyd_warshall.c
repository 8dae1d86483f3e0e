/* floyd_warshall.c — all-pairs shortest paths: min-plus closure of the distance matrix,
 * D[i][j] := min(D[i][j], D[i][k] + D[k][j]) for every intermediate vertex k. */
#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
#ifndef N
#define N 16
#endif

void kernel_floyd_warshall(int n, DATA_TYPE D[N][N])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j];
#pragma endscop
}

int main(void)
{
  static DATA_TYPE D[N][N];
  kernel_floyd_warshall(N, D);
  return 0;
}
