#!/usr/bin/env bash
# Configures and builds streamscope into ${BUILD_DIR:-build} (Release-ish,
# with debug info). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B "$BUILD_DIR" -G Ninja "$@" >"$BUILD_DIR.configure.log" 2>&1 || { cat "$BUILD_DIR.configure.log"; exit 1; }
grep -E "WARNING|CUDA toolkit" "$BUILD_DIR.configure.log" || true
cmake --build "$BUILD_DIR" -j"$(nproc)"
