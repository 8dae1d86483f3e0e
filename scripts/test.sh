#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine as on a developer's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
# nvcc for the GPU backend's compile checks (NVIDIA's wheels in a venv; no GPU needed).
# shellcheck source=scripts/cuda.sh
source scripts/cuda.sh || echo "warning: no nvcc; the GPU backend tests will be skipped" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --workspace --locked 2>&1 | tee "$log" || status=$?
# One closing line for the whole suite (cargo prints one per test binary).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
