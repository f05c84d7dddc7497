#!/usr/bin/env bash
# Re-records tests/data/collector_known_ops.sqlite: the known_ops test
# program traced with the default record kinds through `streamscope run`.
# Needs a CUDA GPU and a build (BUILD_DIR, default build/).
# Usage: tools/gpu/collector_record_fixture.sh [OUTPUT=tests/data/collector_known_ops.sqlite]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build}
OUT=${1:-$ROOT/tests/data/collector_known_ops.sqlite}
"$BUILD/bin/streamscope" run --force --no-summary -o "$OUT" -- "$BUILD/bin/collector_known_ops"
python3 "$ROOT/tools/gpu/collector_check_trace.py" known_ops "$OUT"
