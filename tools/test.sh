#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs every CTest,
# then the Python package's tests. GPU tests (label `gpu`) run where a GPU
# is present and are reported as skipped elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build}
tools/install_deps.sh
# -Werror: the build has no warnings at -Wall -Wextra and a new one fails here.
tools/build.sh -DSTREAMSCOPE_WERROR=ON
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" --timeout 600)

# Python package (python/): built as a wheel, installed into a venv in the
# build folder, tested with pytest against the CLI just built. A re-run
# reuses the venv and its dependencies and only rebuilds the wheel.
cd "$ROOT"
case $BUILD_DIR in /*) BUILD_ABS=$BUILD_DIR ;; *) BUILD_ABS=$ROOT/$BUILD_DIR ;; esac
VENV=$BUILD_DIR/pyvenv
PY=$VENV/bin/python
[ -x "$PY" ] || python3 -m venv "$VENV"
# duckdb and polars: the tests load the tables with them as users would;
# dask.distributed: the many-rank tests run on a LocalCluster.
"$PY" -c "import pytest, pyarrow, duckdb, polars, wheel, distributed, setuptools as s; assert int(s.__version__.split('.')[0]) >= 61" 2>/dev/null ||
  "$PY" -m pip install -q pytest pyarrow duckdb polars wheel "setuptools>=61" "dask[distributed]>=2023.1"
# setuptools builds in python/build: a stale file there would ship in the wheel.
rm -rf "$BUILD_DIR/wheels" python/build python/streamscope.egg-info
"$PY" -m pip wheel -q --no-deps --no-build-isolation ./python -w "$BUILD_DIR/wheels"
if "$PY" -c "import pandas, numpy, matplotlib" 2>/dev/null; then
  "$PY" -m pip install -q --no-deps --force-reinstall "$BUILD_DIR"/wheels/streamscope-*.whl
else
  "$PY" -m pip install -q "$BUILD_DIR"/wheels/streamscope-*.whl  # with its dependencies
fi
rc=0
STREAMSCOPE_BIN="$BUILD_ABS/bin/streamscope" STREAMSCOPE_REQUIRE_CLI=1 MPLBACKEND=Agg \
  "$PY" -m pytest -q -p no:cacheprovider python/tests || rc=$?
if [ "$rc" = 5 ]; then
  echo "tools/test.sh: pytest collected no tests in python/tests (exit 5): the Python suite is missing" >&2
  exit 1
fi
[ "$rc" = 0 ] || exit "$rc"

# The benchmark claims, quick (200k ops, ratios to a baseline measured in the
# same run): a claim more than 25 % worse than bench/results/claims.txt fails
# the run, reported as a performance regression, not as a failing test.
cd "$ROOT"
if ! bench/check_claims.sh --quick "$BUILD_DIR"; then
  echo "tools/test.sh: every test passed; the benchmark claim check failed (see above)" >&2
  exit 1
fi
