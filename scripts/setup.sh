#!/usr/bin/env bash
# Installs what dpnc needs on a Debian machine (run as root): the packages listed in
# packages.txt (the autotools that isl-rs uses to build its bundled isl, a C/C++ compiler,
# Verilator, Yosys, Chromium and a font for the design report's browser test) and a Rust toolchain
# if none is present. Idempotent.
set -euo pipefail
mapfile -t packages < "$(dirname "$0")/packages.txt"
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
fi
