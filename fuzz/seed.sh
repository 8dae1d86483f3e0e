#!/bin/sh
# Seeds the fuzz corpora from the project's kernels and bad inputs (copied at run time, not
# committed): fuzz/corpus/<target>/ for every target.
set -e
here=$(cd "$(dirname "$0")" && pwd)
for t in preprocess parse load; do
  mkdir -p "$here/corpus/$t"
  for f in "$here"/../tests/kernels/*.c "$here"/../tests/bad/*.c "$here"/../tests/cli_bad/*.c "$here"/../tests/regress/*.c; do
    [ -f "$f" ] || continue
    [ "$(wc -c < "$f")" -le 4096 ] || continue
    case "$f" in *macro_bomb*) continue ;; esac  # 1 s per run: starves the fuzzer
    cp "$f" "$here/corpus/$t/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
done
echo "seeded: $(ls "$here/corpus/load" | wc -l) files per target"
