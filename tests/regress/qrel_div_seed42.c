/* Random kernel from tests/src/gen.rs, seed 42 (0x2a).
 * Status: fixed. Bug: SARE evaluator found no final value / source: qrel::Piece could not
 *   evaluate pieces with a floor division (`i mod 3 = 1`) — isl's constraint list omits the
 *   div's defining constraints, and an output fixed only through a div (the last `i` with
 *   `i mod 3 = 1`) was guessed from its lower bound. Fixed in frontend/src/qrel.rs.
 * Failure: sare [Error]: SARE evaluator: internal error: the dataflow gives no final value for B[0, 0, 0]
 * Inputs: Store::random(seed 43)
 * Check: dpnc run FILE --random 43 --outputs OUT --check
 */
#define M 3

void kernel_random(int m, float B[3][3][3])
{
  int i;
#pragma scop
  for (i = 0; i < m; i++) {
    if ((i) % 2 == 0) {
      B[i][i][i] = 1.0f;
    }
  }
#pragma endscop
}

int main(void)
{
  static float B[3][3][3];
  kernel_random(M, B);
  return 0;
}
