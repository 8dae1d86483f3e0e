#define N 8
#define BODY for for ; ) (
void kernel_macro(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    BODY
#pragma endscop
}
int main(void) { static double A[N]; kernel_macro(N, A); return 0; }
