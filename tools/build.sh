#!/usr/bin/env bash
# Configures and builds streamscope into ${BUILD_DIR:-build} (Release-ish,
# with debug info). Extra arguments go to cmake's configure step.
# BUILD_TARGETS="a b" builds only those targets (the main job needs three,
# the test suite all of them).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B "$BUILD_DIR" -G Ninja "$@" >"$BUILD_DIR.configure.log" 2>&1 || { cat "$BUILD_DIR.configure.log"; exit 1; }
grep -E "WARNING|CUDA toolkit" "$BUILD_DIR.configure.log" || true
targets=()
for t in ${BUILD_TARGETS:-}; do
  # A target the configuration does not have (the collector without CUDA) is
  # left out, and the build says so.
  if cmake --build "$BUILD_DIR" --target help | grep -q "^$t:"; then
    targets+=(--target "$t")
  else
    echo "streamscope: not building $t (not part of this configuration)"
  fi
done
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}"
