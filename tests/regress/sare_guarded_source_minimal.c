/* Hand-reduced from random kernel seed 1465 (see sare_else_branch_source_seed1465.c).
 * Status: fixed (the dataflow now gives isl a schedule tree instead of a schedule map). The read A[0] in S2[i = 1] must come
 *   from S1[i = 0] (A[0] = 3.0, schedule [0, 0, 1]), which runs after S0[i = 0] (A[0] = 1.0,
 *   schedule [0, 0, 0]); `dpnc --emit sare` gives S0[i' = 0] as the source, so the SARE
 *   evaluator (and the DPN built from the SARE) read 1.0 where the interpreter reads 3.0.
 *   Without the guard on S2, or with S1 unguarded, the dataflow is right.
 * Check: dpnc run FILE --random 1 --outputs OUT --check
 */
void kernel_t(double A[4])
{
  int i;
#pragma scop
  for (i = 0; i < 2; i++) {
    A[i] = 1.0;
    if (i < 1)
      A[0] = 3.0;
    if (i >= 1)
      A[3] = A[0];
  }
#pragma endscop
}

int main(void)
{
  static double A[4];
  kernel_t(A);
  return 0;
}
