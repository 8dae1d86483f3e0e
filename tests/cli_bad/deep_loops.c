#define N 1
void kernel_deepfor(int n, double A[2])
{
  int i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15, i16, i17, i18, i19;
#pragma scop
for (i0 = 0; i0 < n; i0++)
for (i1 = 0; i1 < n; i1++)
for (i2 = 0; i2 < n; i2++)
for (i3 = 0; i3 < n; i3++)
for (i4 = 0; i4 < n; i4++)
for (i5 = 0; i5 < n; i5++)
for (i6 = 0; i6 < n; i6++)
for (i7 = 0; i7 < n; i7++)
for (i8 = 0; i8 < n; i8++)
for (i9 = 0; i9 < n; i9++)
for (i10 = 0; i10 < n; i10++)
for (i11 = 0; i11 < n; i11++)
for (i12 = 0; i12 < n; i12++)
for (i13 = 0; i13 < n; i13++)
for (i14 = 0; i14 < n; i14++)
for (i15 = 0; i15 < n; i15++)
for (i16 = 0; i16 < n; i16++)
for (i17 = 0; i17 < n; i17++)
for (i18 = 0; i18 < n; i18++)
for (i19 = 0; i19 < n; i19++)
    A[0] = A[0] + 1.0;
#pragma endscop
}
int main(void) { static double A[2]; kernel_deepfor(N, A); return 0; }
