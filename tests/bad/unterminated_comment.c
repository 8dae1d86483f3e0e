/* expect 9:17 unterminated comment */
#define N 16

void kernel_unterminated_comment(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 0.0; /* clear the row
#pragma endscop
}

int main(void)
{
  static double A[N];
  kernel_unterminated_comment(N, A);
  return 0;
}
