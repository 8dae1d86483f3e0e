#!/usr/bin/env bash
# Memory-system benchmark (issue 30's table): cycles in Verilator against each design's bounds.
# usage: [DPNC=path] [CASES="gemm44 bicg16 …"] bench/memory.sh POLYBENCH_DIR
# Per case: cycles, the busiest process's iterations, the DDR bound (bytes through the busiest
# port ÷ 64 B per cycle, one 512-bit beat), cycles ÷ the larger bound, the bytes the network
# reads, those the run fetched (whole beats) and how many more that is (negative: lines cached
# across bands), of those the bytes fetched again (their line had been read before), and the
# bytes written.
set -euo pipefail
dir=${1:?usage: bench/memory.sh POLYBENCH_DIR}
cd "$(dirname "$0")/.."
if [ -z "${DPNC:-}" ]; then cargo build --release -q -p dpnc; DPNC=$PWD/target/release/dpnc; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/cases.sh
source bench/cases.sh
printf '%-14s %9s %9s %9s %6s %10s %10s %6s %8s %10s\n' case cycles busiest "DDR bound" ratio "read (B)" "fetched" "extra" "again" "written"
for c in ${CASES:-gemm1 gemm44 bicg1 bicg16 bicg16i jacobi1 jacobi16 jacobi16-rows saxpy}; do
  # shellcheck disable=SC2086
  "$DPNC" sim ${args[$c]} --random 1 --json --max-cycles 50000000 > "$work/$c.json" 2> "$work/$c.err" || {
    echo "$c: dpnc sim failed:"; tail -3 "$work/$c.err"; continue; }
  python3 - "$work/$c.json" "$c" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ports = d.get("ports") or [{"bytes_read": d["ddr_bytes_read"], "bytes_written": d["ddr_bytes_written"]}]
ddr = max(p["bytes_read"] + p["bytes_written"] for p in ports) / 64
# With vector lanes (--simd) the busiest process issues a vector of points a cycle.
busiest = d.get("busiest_process_issues", d["busiest_process_iterations"])
bound = max(busiest, ddr)
fetched = d.get("ddr_bytes_fetched", d["ddr_bytes_read"])
extra = 100 * (fetched - d["ddr_bytes_read"]) / max(1, d["ddr_bytes_read"])
again = sum(p.get("bytes_reread", 0) for p in ports)
print(f'{sys.argv[2]:<14} {d["cycles"]:>9} {busiest:>9} {ddr:>9.0f} {d["cycles"] / bound:>6.2f} {d["ddr_bytes_read"]:>10} {fetched:>10} {extra:>5.1f}% {again:>8} {d["ddr_bytes_written"]:>10}' + ("" if d["bit_exact"] else "  NOT BIT-EXACT"))
PY
done
