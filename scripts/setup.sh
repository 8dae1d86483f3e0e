#!/usr/bin/env bash
# Installs what dpnc needs on a Debian machine (run as root): the autotools that isl-rs
# uses to build its bundled isl, a C/C++ compiler, Verilator and Yosys, and a Rust
# toolchain if none is present. Idempotent: nothing is installed twice.
set -euo pipefail
packages=(autoconf automake libtool make pkg-config gcc g++ verilator yosys ca-certificates curl)
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
