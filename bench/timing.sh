#!/usr/bin/env bash
# Logic-depth benchmark (issue 31): `dpnc synth --timing` on the paper's cases and on kernels
# that use every cell of the library; per design, its modules' slowest paths, slowest first.
# usage: [DPNC=path] [CELLS="dpn_fadd:LATENCY=4 …"] [CASES="gemm1 bicg1 …"] [TOP=n] bench/timing.sh POLYBENCH_DIR
# CELLS: cells timed alone (`dpnc synth-cell`), each NAME:SETTING,SETTING…; by default the float
# and integer arithmetic cells at the latencies the datapaths give them, in 32 and 64 bits.
# TOP: how many modules to print per design (default 8), each with the signals its path passes.
# The parallel cases take Yosys from about 25 minutes (jacobi16) to hours (gemm44) on 2 cores;
# a module alone (`dpnc -o DIR …`, then `dpnc synth-cell DIR/<module>.v`) takes minutes.
set -euo pipefail
dir=${1:?usage: bench/timing.sh POLYBENCH_DIR}
cd "$(dirname "$0")/.."
if [ -z "${DPNC:-}" ]; then cargo build --release -q -p dpnc; DPNC=$PWD/target/release/dpnc; fi
# shellcheck source=bench/cases.sh
source bench/cases.sh
# Cells the paper's cases do not use: division and square root (float), integer division.
args[cholesky]="tests/kernels/cholesky.c -DDATA_TYPE=float --tile 4"
args[negdiv]="tests/kernels/negative_division.c -DDATA_TYPE=float --tile 4"
f64="EW=11,MW=52"
for c in ${CELLS-dpn_fadd:LATENCY=4 dpn_fadd:$f64,LATENCY=6 dpn_fmul:LATENCY=5 dpn_fmul:$f64,LATENCY=6 \
  dpn_fdiv:LATENCY=16 dpn_fdiv:$f64,LATENCY=30 dpn_fsqrt:LATENCY=16 dpn_fsqrt:$f64,LATENCY=30 \
  dpn_f2f:LATENCY=2 dpn_f2f:EWI=11,MWI=52,EWO=8,MWO=23,LATENCY=2 dpn_i2f:IW=32,LATENCY=3 dpn_i2f:$f64,IW=64,LATENCY=3 \
  dpn_f2i:IW=32,LATENCY=3 dpn_f2i:$f64,IW=64,LATENCY=3 dpn_fcmp:LATENCY=1 dpn_fmin:LATENCY=1 dpn_fmax:LATENCY=1 \
  dpn_imul:IW=32,LATENCY=3 dpn_imul:IW=64,LATENCY=4 dpn_idiv:IW=32,LATENCY=18 dpn_idiv:IW=64,LATENCY=34}; do
  name=${c%%:*}
  sets=()
  if [ "$name" != "$c" ]; then IFS=, read -ra kv <<< "${c#*:}"; for s in "${kv[@]}"; do sets+=(-G "$s"); done; fi
  echo "== $c: dpnc synth-cell $name ${sets[*]}"
  "$DPNC" synth-cell "$name" "${sets[@]}" 2>&1 | grep -E "between registers|^$name " || true
done
for c in ${CASES-gemm1 bicg1 jacobi1 cholesky negdiv}; do
  [ -n "${args[$c]:-}" ] || { echo "unknown case $c; known: ${!args[*]}" >&2; exit 2; }
  echo "== $c: dpnc synth ${args[$c]} --timing"
  # shellcheck disable=SC2086
  "$DPNC" synth ${args[$c]} --timing 2>/dev/null | sed -n '/^slowest path/,$p' | head -n $((2 + 2 * ${TOP:-8}))
done
