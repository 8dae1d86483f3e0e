/* Random kernel from tests/src/gen.rs, seed 25 (0x19).
 * Status: fixed. Bug: SARE evaluator found no final value / source: qrel::Piece could not
 *   evaluate pieces with a floor division (`i mod 3 = 1`) — isl's constraint list omits the
 *   div's defining constraints, and an output fixed only through a div (the last `i` with
 *   `i mod 3 = 1`) was guessed from its lower bound. Fixed in frontend/src/qrel.rs.
 * Failure: sare [Error]: SARE evaluator: internal error: the dataflow gives no final value for B[1]
 * Inputs: Store::random(seed 26)
 * Check: dpnc run FILE --random 26 --outputs OUT --check
 */

void kernel_random(float B[5])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < 3; i++) {
    for (j = i; j < 4; j++) {
      for (k = 1; k < 2 * i + 1; k++) {
        if ((k) % 2 == 0) {
          B[k - 1] = B[k];
        }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  static float B[5];
  kernel_random(B);
  return 0;
}
