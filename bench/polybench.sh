#!/usr/bin/env bash
# Runs dpnc's frontend over the 30 PolyBench/C 4.2.1 kernels in DIR (unmodified):
# --emit scop, --emit sare, and the interpreter vs SARE evaluator bit-exact check.
# usage: bench/polybench.sh DIR [DATASET=SMALL_DATASET] [EXTRA -D flags...]
set -uo pipefail
dir=${1:?usage: bench/polybench.sh POLYBENCH_DIR [DATASET] [flags...]}
dataset=${2:-SMALL_DATASET}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$(dirname "$0")/.."
cargo build --release -q -p dpnc
dpnc=target/release/dpnc
pass=0; fail=0
for f in $(find "$dir" -name '*.c' -not -path '*/utilities/*' | sort); do
  name=$(basename "$f" .c)
  flags=(-I "$dir/utilities" "-D$dataset" "$@")
  t0=$(date +%s.%N)
  if "$dpnc" "$f" "${flags[@]}" --emit scop >/dev/null 2>/tmp/dpnc-pb.err &&
     "$dpnc" "$f" "${flags[@]}" --emit sare >/dev/null 2>>/tmp/dpnc-pb.err &&
     "$dpnc" run "$f" "${flags[@]}" --random 1 --outputs "/tmp/dpnc-pb-$name" --check 2>>/tmp/dpnc-pb.err; then
    printf '%-16s ok    %6.2f s\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
    pass=$((pass+1))
  else
    printf '%-16s FAIL  %s\n' "$name" "$(head -1 /tmp/dpnc-pb.err)"
    fail=$((fail+1))
  fi
  rm -rf "/tmp/dpnc-pb-$name"
done
echo "$pass passed, $fail failed"
