/* Random kernel from tests/src/gen.rs, seed 31 (0x1f).
 * Status: fixed. Bug: SARE evaluator found no final value / source: qrel::Piece could not
 *   evaluate pieces with a floor division (`i mod 3 = 1`) — isl's constraint list omits the
 *   div's defining constraints, and an output fixed only through a div (the last `i` with
 *   `i mod 3 = 1`) was guessed from its lower bound. Fixed in frontend/src/qrel.rs.
 * Failure: sare [Error]: SARE evaluator: internal error: the dataflow gives no final value for A[0, 0]
 * Inputs: Store::random(seed 32)
 * Check: dpnc run FILE --random 32 --outputs OUT --check
 */
#define M 3

void kernel_random(int m, double A[1][1])
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++) {
    for (j = -i; j < 2 * i; j++) {
      if ((i) % 2 == 0) {
        A[0][0] = 1.0;
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static double A[1][1];
  kernel_random(M, A);
  return 0;
}
