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
# Static dependencies: the CLI tested here is the one the wheel below ships.
tools/build.sh -DSTREAMSCOPE_WERROR=ON -DSTREAMSCOPE_STATIC_DEPS=ON
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" --timeout 600)

# Python package (python/): the wheel, packaged from the binaries just built
# (tools/build_wheel.sh --from: nothing is compiled again), installed into a
# new venv outside the source and build trees; its tests then run from
# there with nothing on PATH and no STREAMSCOPE_BIN: the package's own CLI
# answers. Third-party packages come from a venv kept in the build folder
# (build/pyvenv, which never holds streamscope) through a .pth file, so a
# re-run does not reinstall them (2 minutes on 2 cores); `pip check` still
# holds the wheel's requirements against them.
cd "$ROOT"
DEPS=$BUILD_DIR/pyvenv
[ -x "$DEPS/bin/python" ] || python3 -m venv "$DEPS"
# duckdb and polars: the tests load the tables with them as users would;
# dask.distributed: the many-rank tests run on a LocalCluster;
# scikit-build-core builds the wheel without the network.
"$DEPS/bin/python" -c "import pytest, pyarrow, duckdb, polars, distributed, pandas, numpy, matplotlib, scikit_build_core" 2>/dev/null ||
  "$DEPS/bin/python" -m pip install -q pytest pyarrow duckdb polars "dask[distributed]>=2023.1" \
    "pandas>=2.0" numpy matplotlib "scikit-build-core>=0.10"
"$DEPS/bin/python" -m pip uninstall -q -y streamscope 2>/dev/null || true
WHEEL=$(PYTHON=$DEPS/bin/python tools/build_wheel.sh --from "$BUILD_DIR" -o "$BUILD_DIR/wheels")
echo "tools/test.sh: $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB)"
CLEAN=$(mktemp -d /tmp/streamscope-wheel-test.XXXXXX)
trap 'rm -rf "$CLEAN"' EXIT
python3 -m venv --without-pip "$CLEAN/venv"  # the pip of $DEPS installs into it: quicker
PY=$CLEAN/venv/bin/python
"$DEPS/bin/python" -m pip --python "$PY" install -q --no-deps "$WHEEL"
"$DEPS/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" \
  >"$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/streamscope-test-deps.pth"
"$DEPS/bin/python" -m pip --python "$PY" check
rc=0
(cd "$CLEAN" && env -i PATH=/usr/bin:/bin HOME="$CLEAN" MPLBACKEND=Agg STREAMSCOPE_REQUIRE_CLI=1 \
  STREAMSCOPE_EXPECT_WHEEL=1 "$PY" -m pytest -q -p no:cacheprovider "$ROOT/python/tests") || rc=$?
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
