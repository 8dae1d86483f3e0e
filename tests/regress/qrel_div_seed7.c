/* Random kernel from tests/src/gen.rs, seed 7 (0x7).
 * Status: fixed. Bug: SARE evaluator found no final value / source: qrel::Piece could not
 *   evaluate pieces with a floor division (`i mod 3 = 1`) — isl's constraint list omits the
 *   div's defining constraints, and an output fixed only through a div (the last `i` with
 *   `i mod 3 = 1`) was guessed from its lower bound. Fixed in frontend/src/qrel.rs.
 * Failure: sare [Error]: SARE evaluator: internal error: the dataflow gives no final value for B[0, 0, 0]
 * Inputs: Store::random(seed 8)
 * Check: dpnc run FILE --random 8 --outputs OUT --check
 */
#define N 2

void kernel_random(int n, double B[1][6][1])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < 3; j++) {
      for (k = 0; k < 6; k++) {
        if ((i) % 3 == 1) {
          B[0][k][0] = 1.0;
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static double B[1][6][1];
  kernel_random(N, B);
  return 0;
}
