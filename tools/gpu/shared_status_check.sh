#!/usr/bin/env bash
# Checks on a GPU machine that the collector and the workloads program, both
# built on the shared Status type (schema/status.h), behave as before: the
# collector records the known_ops program exactly by injection and through
# `streamscope run`, a collector fault is one line while the program runs on,
# and the workloads program keeps its exit codes (2 for a usage error, 0 with
# validation=passed for a variant). Builds nothing: takes the prebuilt
# build/ folder (bin/, lib/) and writes logs and traces under $OUT.
#   OUT=... tools/gpu/shared_status_check.sh
# Prints one "ok"/"FAIL" line per check and "shared_status_check: PASS" or
# "shared_status_check: FAIL" last; exits 1 on a failure.
set -uo pipefail
: "${OUT:?set OUT to the folder for logs and traces}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export STREAMSCOPE_BUILD_DIR=${STREAMSCOPE_BUILD_DIR:-$ROOT/build}
export STREAMSCOPE_TEST_OUT=$OUT/collector
mkdir -p "$STREAMSCOPE_TEST_OUT"
BIN=$STREAMSCOPE_BUILD_DIR/bin
fail=0
check() {  # check DESCRIPTION COMMAND...
  local d=$1; shift
  if "$@" >"$OUT/$d.log" 2>&1; then echo "ok   $d"; else echo "FAIL $d (log: $d.log)"; fail=1; fi
}
check known_ops_injection "$ROOT/tools/gpu/collector_gpu_test.sh" known_ops injection
check known_ops_run "$ROOT/tools/gpu/collector_gpu_test.sh" known_ops run
check faults_run "$ROOT/tools/gpu/collector_gpu_test.sh" faults run
"$BIN/streamscope_workloads" --no-such-flag >"$OUT/workloads_usage.log" 2>&1
rc=$?
if [ "$rc" = 2 ]; then echo "ok   workloads_usage_exit_2"; else echo "FAIL workloads_usage_exit_2 (got $rc)"; fail=1; fi
"$BIN/streamscope_workloads" --variant overlapped >"$OUT/workloads_overlapped.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q "validation=passed" "$OUT/workloads_overlapped.log"; then
  echo "ok   workloads_overlapped_validates"
else
  echo "FAIL workloads_overlapped_validates (exit $rc)"
  fail=1
fi
if [ "$fail" = 0 ]; then echo "shared_status_check: PASS"; else echo "shared_status_check: FAIL"; fi
exit "$fail"
