/* A streaming kernel for the memory benchmark: y = a*x + y over N floats, each array on its own port. */
#define N 1048576

void kernel_saxpy(int n, float a, float x[N], float y[N]) {
#pragma scop
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
#pragma endscop
}

int main(void) {
    static float x[N], y[N];
    kernel_saxpy(N, 2.0f, x, y);
    return 0;
}
