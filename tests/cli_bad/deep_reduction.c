/* A scalar reduction over 8 nested loops (the most dpnc accepts): its exact dataflow has a piece
 * per way the inner counters roll over, which once took minutes to simplify. */
#define N 16
void kernel_deep_reduction(double A[N], double s[1])
{
  int i0, i1, i2, i3, i4, i5, i6, i7;
#pragma scop
  for (i0 = 0; i0 < 2; i0++)
    for (i1 = 0; i1 < 2; i1++)
      for (i2 = 0; i2 < 2; i2++)
        for (i3 = 0; i3 < 2; i3++)
          for (i4 = 0; i4 < 2; i4++)
            for (i5 = 0; i5 < 2; i5++)
              for (i6 = 0; i6 < 2; i6++)
                for (i7 = 0; i7 < 2; i7++)
                  s[0] = s[0] + A[i0+i1+i2+i3+i4+i5+i6+i7];
#pragma endscop
}
int main(void) { static double A[N], s[1]; kernel_deep_reduction(A, s); return 0; }
