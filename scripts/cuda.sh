#!/usr/bin/env bash
# Makes nvcc available to dpnc's CUDA backend without a root CUDA installation, from NVIDIA's
# wheels on PyPI installed into a Python virtual environment.
#
#   source scripts/cuda.sh             exports DPNC_NVCC, DPNC_CUDA_HOME, DPNC_CUDA_LDFLAGS and
#                                      puts $DPNC_CUDA_HOME/lib on LD_LIBRARY_PATH
#   bash scripts/cuda.sh --print-env   prints those as `export NAME='value'` lines (eval-able)
#
# Then:
#   $DPNC_NVCC -std=c++17 --fmad=false -arch=sm_80 -I$DPNC_CUDA_HOME/include \
#       -L$DPNC_CUDA_HOME/lib -lcudart $DPNC_CUDA_LDFLAGS x.cu -o x
# ($DPNC_CUDA_LDFLAGS adds an rpath to the venv's libcudart.so.13, so x runs without
# LD_LIBRARY_PATH.)
#
# Environment:
#   DPNC_NVCC         if it is already set to an executable (e.g. a system CUDA toolkit's nvcc),
#                     it is used as is and nothing is installed; DPNC_CUDA_HOME then defaults to
#                     the directory above its bin/
#   DPNC_CUDA_VENV    where the venv lives (default $HOME/.cache/dpnc/cuda-venv)
#   DPNC_PYTHON       the Python that creates the venv (default python3)
#
# Why CUDA 13.0 and not the nvidia-*-cu12 wheels: every nvidia-cuda-nvcc-cu12 wheel (12.0 to
# 12.9) ships only ptxas and libnvvm, no nvcc driver, cudafe++, cicc or fatbinary. From CUDA 13
# NVIDIA publishes the whole compiler as wheels (nvidia-cuda-nvcc, -crt, nvidia-nvvm,
# nvidia-cuda-runtime, all under site-packages/nvidia/cu13). 13.0 is the oldest 13.x: a binary
# built by it (sm_80 SASS plus compute_80 PTX for JIT on newer GPUs) needs an NVIDIA driver that
# supports CUDA 13.0 (r580 or newer); a newer toolkit would emit PTX that r580 cannot JIT.
# nvcc 13.0 accepts host gcc/g++ 6 to 15 (crt/host_config.h), so Debian 12's g++ 12.2 needs no
# -allow-unsupported-compiler. On a machine whose driver is older, set DPNC_NVCC to the nvcc of
# a CUDA 12 toolkit instead.
#
# Idempotent; when the venv is complete it only checks a stamp file (milliseconds).

_dpnc_cuda_pins=(
  "nvidia-cuda-nvcc==13.0.88"
  "nvidia-cuda-crt==13.0.88"
  "nvidia-nvvm==13.0.88"
  "nvidia-cuda-runtime==13.0.96"
)

_dpnc_cuda_log() { echo "cuda.sh: $*" >&2; }

# Finds site-packages/nvidia/cu13 in venv $1; prints it.
_dpnc_cuda_root() {
  local d
  for d in "$1"/lib/python3*/site-packages/nvidia/cu13; do
    if [ -x "$d/bin/nvcc" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

# Creates the venv and installs the pinned wheels (under a lock: tests may run this in parallel).
_dpnc_cuda_install() {
  local venv=$1 stamp=$2 want=$3 py=${DPNC_PYTHON:-python3} start root
  start=$(date +%s)
  mkdir -p "$(dirname "$venv")" || return 1
  if [ ! -x "$venv/bin/python" ]; then
    _dpnc_cuda_log "creating a Python venv in $venv"
    "$py" -m venv "$venv" || { _dpnc_cuda_log "cannot create a venv with $py (Debian: apt-get install python3-venv)"; return 1; }
  fi
  _dpnc_cuda_log "installing ${_dpnc_cuda_pins[*]}"
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q "${_dpnc_cuda_pins[@]}" >&2 ||
    { _dpnc_cuda_log "pip install failed"; return 1; }
  root=$(_dpnc_cuda_root "$venv") || { _dpnc_cuda_log "no nvidia/cu13/bin/nvcc in $venv after pip install"; return 1; }
  # -lcudart needs the unversioned name; nvcc.profile also searches lib64.
  [ -e "$root/lib/libcudart.so" ] || ln -s libcudart.so.13 "$root/lib/libcudart.so" || return 1
  [ -e "$root/lib64" ] || ln -s lib "$root/lib64" || return 1
  # Smoke test: compile and link (not run) a kernel with the host compiler.
  local tmp
  tmp=$(mktemp -d) || return 1
  printf '%s\n' '#include <cstdio>' '__global__ void k(int* p) { *p = 1; }' \
    'int main() { int* p = nullptr; cudaMalloc(&p, 4); k<<<1, 1>>>(p); std::printf("%d\n", (int)cudaDeviceSynchronize()); }' \
    > "$tmp/smoke.cu"
  if ! "$root/bin/nvcc" -std=c++17 --fmad=false -arch=sm_80 -I"$root/include" -L"$root/lib" -lcudart \
      "$tmp/smoke.cu" -o "$tmp/smoke" >"$tmp/log" 2>&1; then
    _dpnc_cuda_log "nvcc cannot build a test program with this host compiler ($(c++ --version 2>/dev/null | head -n 1)):"
    cat "$tmp/log" >&2
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$tmp"
  echo "$want" > "$stamp" || return 1
  _dpnc_cuda_log "installed $("$root/bin/nvcc" --version | grep -o "release [^,]*, V[0-9.]*") in $(( $(date +%s) - start )) s ($(du -sh "$venv" | cut -f1))"
}

# Sets DPNC_NVCC, DPNC_CUDA_HOME and DPNC_CUDA_LDFLAGS (in this shell, not exported yet).
_dpnc_cuda_setup() {
  if [ -n "${DPNC_NVCC:-}" ]; then
    if [ ! -x "$DPNC_NVCC" ]; then
      _dpnc_cuda_log "DPNC_NVCC=$DPNC_NVCC is not an executable"
      return 1
    fi
    DPNC_CUDA_HOME=${DPNC_CUDA_HOME:-$(cd "$(dirname "$DPNC_NVCC")/.." && pwd)}
  else
    local venv=${DPNC_CUDA_VENV:-$HOME/.cache/dpnc/cuda-venv} root want stamp
    want="${_dpnc_cuda_pins[*]}"
    stamp="$venv/.dpnc-cuda-stamp"
    root=$(_dpnc_cuda_root "$venv" 2>/dev/null) || root=
    if [ -z "$root" ] || [ ! -e "$root/lib/libcudart.so" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
      mkdir -p "$(dirname "$venv")" || return 1
      if command -v flock >/dev/null 2>&1; then
        # The lock file is beside the venv (its directory may not exist yet).
        (
          flock 9 || exit 1
          r=$(_dpnc_cuda_root "$venv" 2>/dev/null) || r=
          if [ -n "$r" ] && [ -e "$r/lib/libcudart.so" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
            exit 0  # another process installed it while we waited
          fi
          _dpnc_cuda_install "$venv" "$stamp" "$want"
        ) 9>"$venv.lock" || return 1
      else
        _dpnc_cuda_install "$venv" "$stamp" "$want" || return 1
      fi
      root=$(_dpnc_cuda_root "$venv") || return 1
    fi
    DPNC_NVCC=$root/bin/nvcc
    DPNC_CUDA_HOME=$root
  fi
  DPNC_CUDA_LDFLAGS="-Xlinker -rpath -Xlinker $DPNC_CUDA_HOME/lib"
}

_dpnc_cuda_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: set up this shell; never exit it.
  if _dpnc_cuda_setup; then
    export DPNC_NVCC DPNC_CUDA_HOME DPNC_CUDA_LDFLAGS
    case ":${LD_LIBRARY_PATH:-}:" in
      *":$DPNC_CUDA_HOME/lib:"*) ;;
      *) export LD_LIBRARY_PATH="$DPNC_CUDA_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    esac
  else
    _dpnc_cuda_log "nvcc is not available"
    false
  fi
else
  set -uo pipefail
  case "${1:-}" in
    --print-env)
      _dpnc_cuda_setup || exit 1
      echo "export DPNC_NVCC=$(_dpnc_cuda_quote "$DPNC_NVCC")"
      echo "export DPNC_CUDA_HOME=$(_dpnc_cuda_quote "$DPNC_CUDA_HOME")"
      echo "export DPNC_CUDA_LDFLAGS=$(_dpnc_cuda_quote "$DPNC_CUDA_LDFLAGS")"
      ;;
    "")
      _dpnc_cuda_setup || exit 1
      _dpnc_cuda_log "nvcc: $DPNC_NVCC"
      _dpnc_cuda_log "(source this script, or eval \"\$(bash scripts/cuda.sh --print-env)\", to export DPNC_NVCC and DPNC_CUDA_HOME)"
      ;;
    *)
      echo "usage: source scripts/cuda.sh | bash scripts/cuda.sh [--print-env]" >&2
      exit 64
      ;;
  esac
fi
