#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs every CTest.
# GPU tests (label `gpu`) run where a GPU is present and are reported as
# skipped elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
tools/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)" --timeout 600
