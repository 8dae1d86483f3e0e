/* expect 10:5 loop iterator `i` is modified inside its loop */
#define N 16

void kernel_iterator_assigned(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 0.0;
    i = i + 1;
  }
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_iterator_assigned(N, A);
  return 0;
}
