#!/usr/bin/env bash
# One batch on the GPU machine for record kind `memory` (run from the
# repository root there, binaries staged in out/gpu by
# tools/gpu/collector_stage.sh + tests/workloads/stage_for_gpu.sh):
# collector GPU tests (known_ops, memory_ops, pytorch, faults), the
# launch-bound benchmark with and without `memory`, a dump of the memory
# tables, and re-recorded fixtures (tests/data layout) in $OUT/fixtures.tgz.
# Logs: $OUT/{machine.txt,tests.log,bench.log,dump.log,fixtures.log}, traces
# in $OUT/traces.tgz.
set -uo pipefail
export STREAMSCOPE_BUILD_DIR=$PWD/out/gpu
export STREAMSCOPE_TEST_OUT=$OUT/t
mkdir -p "$STREAMSCOPE_TEST_OUT"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } >"$OUT/machine.txt" 2>&1
T0=$(date +%s)
# TESTS: comma list of "what mode" pairs (default: all collector GPU tests).
IFS=, read -ra tests <<<"${TESTS:-known_ops injection,known_ops static,memory_ops injection,known_ops run,pytorch run,faults run}"
for t in "${tests[@]}"; do
  echo "=== $t ($(( $(date +%s) - T0 )) s)"; timeout 90 tools/gpu/collector_gpu_test.sh $t 2>&1
done >"$OUT/tests.log" 2>&1
grep -E "^(FAIL|KNOWN|PASSED|FAILED|===)" "$OUT/tests.log"
python3 - "$STREAMSCOPE_TEST_OUT" >"$OUT/dump.log" 2>&1 <<'PY'
import glob, sqlite3, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.sqlite")):
    db = sqlite3.connect(path)
    print("==", path.split("/")[-1])
    for t in ("allocation", "memory_access", "event_op", "kernel", "api_call"):
        print("  ", t, db.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
    print("   stats", db.execute("SELECT group_concat(key || '=' || value, ' ') FROM collector_stat "
                                 "WHERE key LIKE 'memory%' OR key LIKE 'nvtx%' OR key LIKE 'records%'").fetchone()[0])
    if "memory_ops" in path or "known_ops_injection" in path:
        for t in ("allocation", "event_op"):
            for r in db.execute(f"SELECT * FROM {t}"): print("  ", t, r)
        for r in db.execute("SELECT m.*, a.name FROM memory_access m LEFT JOIN api_call_named a "
                            "ON a.correlation_id = m.correlation_id"): print("   access", r)
        for r in db.execute("SELECT name, depth, is_push_pop FROM nvtx_range_named"): print("   nvtx", r)
PY
echo "=== bench ($(( $(date +%s) - T0 )) s)" >"$OUT/bench.log"
CONFIGS="untraced noop_default noop_default_memory streamscope_default streamscope_no_memory" ARGS=1 \
  timeout 150 bench/collector/run_launch_bound.sh "$STREAMSCOPE_BUILD_DIR" ${REPS:-3} >>"$OUT/bench.log" 2>&1
tail -4 "$OUT/bench.log"
echo "=== fixtures ($(( $(date +%s) - T0 )) s)" >"$OUT/fixtures.log"
if [ "${FIXTURES:-1}" = 1 ]; then
  mkdir -p "$OUT/fixtures"
  timeout 150 tools/record_fixtures.sh out/gpu/bin "$OUT/fixtures" >>"$OUT/fixtures.log" 2>&1
  BUILD_DIR=$STREAMSCOPE_BUILD_DIR timeout 30 tools/gpu/collector_record_fixture.sh \
    "$OUT/fixtures/collector_known_ops.sqlite" >>"$OUT/fixtures.log" 2>&1
  tail -3 "$OUT/fixtures.log"
  (cd "$OUT/fixtures" && tar czf "$OUT/fixtures.tgz" *.sqlite) && rm -rf "$OUT/fixtures"
fi
echo "total $(( $(date +%s) - T0 )) s"
cd "$STREAMSCOPE_TEST_OUT" && tar czf "$OUT/traces.tgz" known_ops_injection.sqlite memory_ops.sqlite torch_*.sqlite *.stderr 2>/dev/null
rm -rf "$STREAMSCOPE_TEST_OUT"
