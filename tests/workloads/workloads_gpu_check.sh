#!/usr/bin/env bash
# One batch for the GPU machine, from the repository root there (carry
# out/gpu, staged by tools/gpu/collector_stage.sh BUILD_DIR and then
# tests/workloads/stage_for_gpu.sh BUILD_DIR). Writes everything under $OUT:
#   plain.log       every variant alone, small then large (summary lines with
#                   measured_ms and validation)
#   traced.log      every variant under `streamscope run`, checked by
#                   check_workload_trace.py; traces/*.sqlite
#   fixtures.log    tools/record_fixtures.sh into $OUT/fixtures/ (copy those
#                   to tests/data/ and commit them)
#   report.log      `streamscope workloads run --all` (record + report)
# Each command is bounded by timeout; the batch takes about a minute.
set -uo pipefail
: "${OUT:?set OUT to the folder for results}"
export STREAMSCOPE_BUILD_DIR=${STREAMSCOPE_BUILD_DIR:-$PWD/out/gpu}
bin=$STREAMSCOPE_BUILD_DIR/bin
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fixture_args.sh"
mkdir -p "$OUT/traces" "$OUT/fixtures"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  "$bin/streamscope_workloads" --check-device
} 2>&1 | tee "$OUT/machine.txt"

for size in small large; do
  for v in $FIXTURE_VARIANTS; do
    echo "=== $v --size $size"
    timeout 120 "$bin/streamscope_workloads" --variant "$v" --size "$size"
    echo "exit $?"
  done
done 2>&1 | tee "$OUT/plain.log"

for v in $FIXTURE_VARIANTS; do
  echo "=== traced $v"
  timeout 180 "$here/run_workload_test.sh" traced "$v"
  echo "exit $?"
done 2>&1 | tee "$OUT/traced.log"
cp "$STREAMSCOPE_BUILD_DIR"/workload-traces/*.sqlite "$OUT/traces/" 2>/dev/null

timeout 300 "$here/../../tools/record_fixtures.sh" "$bin" "$OUT/fixtures" 2>&1 | tee "$OUT/fixtures.log"

timeout 300 "$bin/streamscope" workloads run --all --force --output-dir "$OUT/report-traces" 2>&1 | tee "$OUT/report.log"

grep -E "^streamscope_workloads: |^=== |^exit " "$OUT/plain.log" > "$OUT/summary.txt"
grep -E "^=== |: (PASSED|FAILED)$|^FAIL" "$OUT/traced.log" >> "$OUT/summary.txt"
cat "$OUT/summary.txt"
