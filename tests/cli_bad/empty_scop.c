#define N 8
void kernel_empty(int n, double A[N])
{
#pragma scop
#pragma endscop
}
int main(void) { static double A[N]; kernel_empty(N, A); return 0; }
