#!/usr/bin/env bash
# The CPU backend's run time against the original PolyBench kernel compiled with gcc -O3.
# usage: [KERNELS="gemm 2mm"] bench/cpu_vs_gcc.sh POLYBENCH_DIR [DATASET=LARGE_DATASET] [--tile …] [--par …]
# Prints, per kernel: the original's kernel time (PolyBench's own timer), the network's time
# (threads started to joined, DPN_TIME), their ratio, and how long dpnc took to build the network.
set -euo pipefail
dir=${1:?usage: bench/cpu_vs_gcc.sh POLYBENCH_DIR [DATASET] [dpnc flags...]}
dataset=${2:-LARGE_DATASET}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$(dirname "$0")/.."
cargo build --release -q -p dpnc
dpnc=$PWD/target/release/dpnc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %12s %12s %8s %12s\n' kernel "gcc -O3 (s)" "dpnc cpu (s)" ratio "dpnc (s)"
for k in ${KERNELS:-gemm jacobi-2d 2mm}; do
  f=$(find "$dir" -name "$k.c" -not -path '*/utilities/*' | head -1)
  gcc -O3 -I "$dir/utilities" -D"$dataset" -DPOLYBENCH_TIME "$dir/utilities/polybench.c" "$f" -o "$work/orig" -lm
  orig=$("$work/orig" 2>&1 | tail -1)
  t0=$(date +%s.%N)
  "$dpnc" "$f" -I "$dir/utilities" -D"$dataset" "$@" --target cpu -o "$work/$k" 2>/dev/null
  built=$(echo "$(date +%s.%N) - $t0" | bc)
  make -s -C "$work/$k" CXXFLAGS="-std=c++17 -O3 -ffp-contract=off -fwrapv -pthread" >/dev/null
  "$dpnc" run "$f" -I "$dir/utilities" -D"$dataset" --random 1 --outputs "$work/$k/run" >/dev/null 2>&1
  mkdir -p "$work/$k/out"
  net=$(DPN_TIME=1 DPN_TIMEOUT=0 "$work/$k/kernel" "$work/$k/run/inputs" "$work/$k/out" 2>&1 | sed -n 's/dpn: network ran in \([0-9.]*\) s/\1/p')
  for o in "$work/$k/run/"*.npy; do cmp -s "$o" "$work/$k/out/$(basename "$o")" || echo "  $k: $(basename "$o") differs from the interpreter"; done
  printf '%-10s %12.4f %12.4f %8.2f %12.1f\n' "$k" "$orig" "$net" "$(echo "$net / $orig" | bc -l)" "$built"
done
