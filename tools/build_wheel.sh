#!/usr/bin/env bash
# Builds the Python wheel (python/pyproject.toml, scikit-build-core): the
# package with the CLI and, where the CUDA toolkit exists, the collector
# inside it (streamscope/_native/). Prints the wheel's path.
#
#   tools/build_wheel.sh [-o DIST]              compile in build-wheel/ (kept:
#                                               a second run only relinks)
#   tools/build_wheel.sh --from BUILD [-o DIST] package what BUILD already
#                                               made (configured with
#                                               -DSTREAMSCOPE_STATIC_DEPS=ON):
#                                               nothing is compiled
#
# DIST defaults to dist/. CMAKE_ARGS (e.g. the compiler launcher ccache) is
# passed to CMake. PYTHON picks the interpreter (default python3); with
# scikit-build-core installed in it the build needs no network.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIST=dist
FROM=""
while [ $# -gt 0 ]; do
  case $1 in
    -o) DIST=$2; shift 2 ;;
    --from) FROM=$2; shift 2 ;;
    *) echo "usage: tools/build_wheel.sh [--from BUILD_DIR] [-o DIST_DIR]" >&2; exit 2 ;;
  esac
done
PY=${PYTHON:-python3}
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$ROOT/$1" ;; esac; }
mkdir -p "$DIST"
DIST=$(abs "$DIST")

settings=()
if [ -n "$FROM" ]; then
  # Its own small CMake folder: only configures and installs the copies.
  settings+=(--config-settings=build-dir="$(abs "$FROM")/wheel-from"
             --config-settings=cmake.define.STREAMSCOPE_WHEEL_FROM="$(abs "$FROM")")
else
  settings+=(--config-settings=build-dir="$ROOT/build-wheel")
fi
isolation=()
if "$PY" -c "import scikit_build_core" 2>/dev/null; then isolation=(--no-build-isolation); fi

rm -f "$DIST"/streamscope-*.whl
"$PY" -m pip wheel -q --no-deps "${isolation[@]}" "${settings[@]}" -w "$DIST" ./python >&2
ls "$DIST"/streamscope-*.whl
