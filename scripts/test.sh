#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine as on a developer's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo test --workspace --locked
