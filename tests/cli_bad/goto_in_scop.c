#define N 8
void kernel_goto(int n, double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 1.0;
    goto done;
  }
#pragma endscop
done:
  return;
}
int main(void) { static double A[N]; kernel_goto(N, A); return 0; }
