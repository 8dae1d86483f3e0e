/* expect 8:15 the loop condition does not bound `i` in the direction it moves */
#define N 16

void kernel_loop_condition_direction(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i > n; i++)
    A[i] = 0.0;
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_loop_condition_direction(N, A);
  return 0;
}
