/* Random kernel from tests/src/gen.rs, seed 1465 (0x5b9).
 * Status: fixed (the dataflow now gives isl a schedule tree instead of a schedule map). isl's compute_flow (isl-rs 0.3.1, schedule given as a
 *   map) returns S0[i' = n - 3, j = 2] as the source of S1's read A[n - i - 2] at n = 3,
 *   missing the later write S2[0] (A[0] = n, schedule [0, 0, 2, 0, 0]) that precedes the
 *   sink S1[1] ([0, 1, 1, 0, 0]). Inputs given to isl: sink
 *   { S1_r0[i] -> A[n - i - 2] : 1 <= i <= 1 }, must sources { S0[i, j] -> A[i] : 0 <= i <= 1
 *   and 0 <= j <= 2; S1[i] -> A[n] : i = 1; S2[i] -> A[i] : i = 0 }, schedule { S0[i, j] ->
 *   [0, i, 0, j, 0]; S1[i] -> [0, i, 1, 0, 0]; S2[i] -> [0, i, 2, 0, 0]; S1_r0[i] ->
 *   [0, i, 1, 0, 0] }, context n >= 1. The interpreter gives A[3] = 3 (from S2), the SARE
 *   evaluator 1 (from S0); the DPN follows the SARE.
 * Failure: sare [Mismatch]: interpreter vs sare: A[3]: 3e0 (0x4008000000000000) vs 1e0 (0x3ff0000000000000)
 * Inputs: Store::random(seed 466)
 * Check: dpnc run FILE --random 466 --outputs OUT --check
 */
#define N 3

void kernel_random(int n, double A[4])
{
  int i, j;
#pragma scop
  for (i = 0; i < 2; i++) {
    for (j = 0; j < 3; j++) {
      A[i] = 1.0;
    }
    if (i >= 1) {
      A[n] = A[n - i - 2];
    } else {
      A[i] = n;
    }
  }
#pragma endscop
}

int main(void)
{
  static double A[4];
  kernel_random(N, A);
  return 0;
}
