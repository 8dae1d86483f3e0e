#define N 8
struct P { double x; };
void kernel_struct(int n, struct P A[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i].x = 1.0;
#pragma endscop
}
int main(void) { static struct P A[N]; kernel_struct(N, A); return 0; }
