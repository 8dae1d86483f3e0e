#include "include_self.c"
#define N 8
void kernel_incself(int n, double A[N]) { }
int main(void) { return 0; }
