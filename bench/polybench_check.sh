#!/usr/bin/env bash
# `dpnc check` on the 30 PolyBench/C 4.2.1 kernels in DIR (unmodified) at MINI size, in double
# (the files' default) and in float (-DDATA_TYPE_IS_FLOAT), with every backend whose tools are
# present (`source scripts/cuda.sh` first for the GPU backend): one line per kernel,
# precision and backend, then a count. Exits non-zero on any mismatch or failure.
# usage: bench/polybench_check.sh POLYBENCH_DIR [dpnc check flags, default: --tile 4]
# DPNC=path/to/dpnc runs that binary instead of building target/release/dpnc.
set -uo pipefail
dir=$(realpath "${1:?usage: bench/polybench_check.sh POLYBENCH_DIR [flags...]}")
shift
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--tile 4)
cd "$(dirname "$0")/.."
if [ -z "${DPNC:-}" ]; then
  cargo build --release -q -p dpnc || exit 1
fi
dpnc=${DPNC:-$PWD/target/release/dpnc}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bad=0; good=0; skipped=0
for f in $(find "$dir" -name '*.c' -not -path '*/utilities/*' -not -name '*.orig.c' | sort); do
  name=$(basename "$f" .c)
  for precision in double float; do
    defines=(-DMINI_DATASET)
    [ "$precision" = float ] && defines+=(-DDATA_TYPE_IS_FLOAT)
    "$dpnc" check "$f" -I "$dir/utilities" "${defines[@]}" "${flags[@]}" >"$log" 2>&1
    status=$?
    # The table: `backend` (20 columns), status (12), time, details.
    rows=$(awk '/^backend +status/ { t = 1; next } t && /^[A-Za-z]/ && !/^error/' "$log")
    if [ -z "$rows" ]; then
      printf '%-16s %-6s %-20s FAILED  %s\n' "$name" "$precision" "(dpnc check)" "$(grep -m1 error "$log")"
      bad=$((bad + 1))
      continue
    fi
    while IFS= read -r row; do
      backend=$(echo "${row:0:20}" | sed 's/ *$//')
      result=$(echo "${row:21:12}" | sed 's/ *$//')
      detail=$(echo "${row:46}" | cut -c1-100)
      printf '%-16s %-6s %-20s %-10s %s\n' "$name" "$precision" "$backend" "$result" "$detail"
      case $result in
        bit-exact|reference) good=$((good + 1)) ;;
        skipped) skipped=$((skipped + 1)) ;;
        *) bad=$((bad + 1)) ;;
      esac
    done <<< "$rows"
    [ "$status" -eq 0 ] || [ "$bad" -gt 0 ] || { echo "$name $precision: dpnc check exited $status"; bad=$((bad + 1)); }
  done
done
echo "$good bit-exact (interpreter rows included), $bad disagreeing or failed, $skipped skipped"
[ "$bad" -eq 0 ]
