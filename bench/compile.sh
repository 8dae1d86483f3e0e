#!/usr/bin/env bash
# Compile cost (issue 33): each of the 30 PolyBench/C 4.2.1 kernels (float, default options)
# from C to Verilog, with its wall time and peak memory (the dpnc process's maximum resident
# set), and the statement instances it was built for.
# usage: [DPNC=path] [TIMEOUT=seconds] [KERNELS="gemm …"] bench/compile.sh POLYBENCH_DIR [DATASET=MEDIUM_DATASET] [dpnc options…]
# KERNELS: only these kernels. GEMM at 4096³, tile 64 (issue 33):
#   KERNELS=gemm bench/compile.sh DIR NI=4096 -DNJ=4096 -DNK=4096 --tile 64
set -uo pipefail
dir=${1:?usage: bench/compile.sh POLYBENCH_DIR [DATASET] [dpnc options...]}
dataset=${2:-MEDIUM_DATASET}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$(dirname "$0")/.."
if [ -z "${DPNC:-}" ]; then cargo build --release -q -p dpnc; DPNC=$PWD/target/release/dpnc; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "PolyBench/C 4.2.1, $dataset, float, C -> Verilog${*:+ ($*)}"
printf '%-16s %14s %10s %10s\n' kernel instances "time (s)" "peak (MB)"
for f in $(find "$dir" -name '*.c' -not -path '*/utilities/*' -not -name '*.orig.c' | sort); do
  name=$(basename "$f" .c)
  [ -z "${KERNELS:-}" ] || [[ " $KERNELS " == *" $name "* ]] || continue
  # The peak of the one child this interpreter runs: getrusage(RUSAGE_CHILDREN), no `time` needed.
  python3 - "$DPNC" "$f" -I "$dir/utilities" "-D$dataset" -DDATA_TYPE_IS_FLOAT "$@" -o "$work/$name" <<'PY'
import os, resource, subprocess, sys, time
limit = float(os.environ.get("TIMEOUT", "600"))
name = os.path.basename(sys.argv[2])[:-2]
t0 = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    _, err = child.communicate(timeout=limit)
except subprocess.TimeoutExpired:
    child.kill()
    child.communicate()
    print(f"{name:<16} {'-':>14} {'>' + str(int(limit)):>10} {'-':>10}  timed out")
    sys.exit(0)
wall = time.monotonic() - t0
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
try:
    import json
    inst = json.load(open(os.path.join(sys.argv[-1], "report.json")))["metrics"]["instances"]
except (OSError, KeyError, ValueError):
    inst = "-"
note = "" if child.returncode == 0 else "  failed: " + (err.strip().splitlines() or ["?"])[-1][:80]
print(f"{name:<16} {inst:>14} {wall:>10.2f} {peak_mb:>10.0f}{note}")
PY
  rm -rf "${work:?}/$name"
done
