/* Streaming statements for vector lanes (--simd): every operand comes from DDR and every result
   goes back to it. A float and a double statement share the loads of x; a 2-D nest walks rows. */
#define N 64
#define R 8
#define C 32

void kernel_streams(int n, int r, int c, float a, double b, float x[N], float y[N], double z[N], double A[R][C], double B[R][C]) {
#pragma scop
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] + y[i];
        z[i] = z[i] * b + x[i];
    }
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            B[i][j] = A[i][j] * b - B[i][j];
#pragma endscop
}

int main(void) {
    static float x[N], y[N];
    static double z[N], A[R][C], B[R][C];
    kernel_streams(N, R, C, 2.0f, 0.5, x, y, z, A, B);
    return 0;
}
