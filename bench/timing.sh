#!/usr/bin/env bash
# Logic-depth benchmark (issue 31): `dpnc synth --timing` on the paper's cases and on kernels
# that use every cell of the library; per design, its modules' slowest paths, slowest first.
# usage: [DPNC=path] [CASES="gemm1 bicg1 …"] [TOP=n] bench/timing.sh POLYBENCH_DIR
# TOP: how many modules to print per design (default 8), each with the signals its path passes. The parallel cases (gemm44, bicg16,
# jacobi16) take Yosys several minutes each.
set -euo pipefail
dir=${1:?usage: bench/timing.sh POLYBENCH_DIR}
cd "$(dirname "$0")/.."
if [ -z "${DPNC:-}" ]; then cargo build --release -q -p dpnc; DPNC=$PWD/target/release/dpnc; fi
# shellcheck source=bench/cases.sh
source bench/cases.sh
# Cells the paper's cases do not use: division and square root (float), integer division.
args[cholesky]="tests/kernels/cholesky.c -DDATA_TYPE=float --tile 4"
args[negdiv]="tests/kernels/negative_division.c -DDATA_TYPE=float --tile 4"
for c in ${CASES:-gemm1 bicg1 jacobi1 cholesky negdiv}; do
  [ -n "${args[$c]:-}" ] || { echo "unknown case $c; known: ${!args[*]}" >&2; exit 2; }
  echo "== $c: dpnc synth ${args[$c]} --timing"
  # shellcheck disable=SC2086
  "$DPNC" synth ${args[$c]} --timing 2>/dev/null | sed -n '/^slowest path/,$p' | head -n $((2 + 2 * ${TOP:-8}))
done
