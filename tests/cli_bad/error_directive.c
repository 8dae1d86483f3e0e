#define N 8
#if N > 4
#error N is too large for this kernel
#endif
void kernel_err(int n, double A[N]) { }
int main(void) { return 0; }
