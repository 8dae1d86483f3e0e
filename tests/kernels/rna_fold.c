/* rna_fold.c — Nussinov's base-pair maximisation: S[i][j] (i < j) is the largest number of
 * pairs the fragment seq[i..j] can form, bases coded 0..3 and two bases pairing when their
 * codes sum to 3. A fragment takes the best of dropping either end, pairing its two ends
 * around the inner fragment, and splitting in two. Fragments grow from the right end of
 * the sequence, so the outer loop runs downwards (`i--`) and tiles as -i. */
#ifndef N
#define N 14
#endif

void kernel_rna_fold(int n, int seq[N], int S[N][N])
{
  int i, j, k;
#pragma scop
  for (i = n - 2; i >= 0; i--)
    for (j = i + 1; j < n; j++) {
      S[i][j] = S[i + 1][j] > S[i][j - 1] ? S[i + 1][j] : S[i][j - 1];
      S[i][j] = S[i][j] > S[i + 1][j - 1] + (seq[i] + seq[j] == 3) ? S[i][j] : S[i + 1][j - 1] + (seq[i] + seq[j] == 3);
      for (k = i + 1; k < j; k++)
        S[i][j] = S[i][j] > S[i][k] + S[k + 1][j] ? S[i][j] : S[i][k] + S[k + 1][j];
    }
#pragma endscop
}

int main(void)
{
  static int seq[N], S[N][N];
  kernel_rna_fold(N, seq, S);
  return 0;
}
