#!/usr/bin/env bash
# GPU check of the command line: the recording
# forms that the CPU tests only check against --help. Run from the
# repository root on the GPU machine with out/gpu staged
# (tools/gpu/collector_stage.sh BUILD; tests/workloads/stage_for_gpu.sh BUILD):
#   OUT=/some/folder tools/gpu/cli_gpu_check.sh
# It must show, in $OUT/cli_gpu_check.log:
#   run:        rc=0, the trace listed on stderr, nothing of streamscope's on stdout
#   run kinds:  rc=2 and "did you mean 'memory'?" before anything runs
#   compare:    options after the trace lists and --output-dir DIR work with --run
#               (rc=0 VERIFIED; DIR holds a-1..a-2 and b-1..b-2), -o FILE holds the verdict
#   workloads:  `workloads run overlapped --output-dir DIR` writes DIR/overlapped.sqlite
# and ends with "ALL OK".
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
bin=${STREAMSCOPE_BUILD_DIR:-$PWD/out/gpu}/bin
W=$(mktemp -d /tmp/cli-gpu-XXXXXX)
log=$OUT/cli_gpu_check.log
fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAILED: $2"; fail=1; fi; }
{
  echo "=== run"
  "$bin/streamscope" run -o "$W/t.sqlite" -- "$bin/streamscope_workloads" --variant overlapped >"$W/run.out" 2>"$W/run.err"
  rc=$?; cat "$W/run.err"
  check "[ $rc = 0 ] && grep -q 'trace of pid' '$W/run.err' && ! grep -q '^streamscope: ' '$W/run.out'" "run"
  echo "=== run --kinds typo"
  "$bin/streamscope" run --kinds +memroy -- /bin/true 2>"$W/kinds.err"; rc=$?; cat "$W/kinds.err"
  check "[ $rc = 2 ] && grep -q \"did you mean 'memory'\" '$W/kinds.err'" "run --kinds typo"
  echo "=== compare --run, options after, --output-dir, -o"
  "$bin/streamscope" compare --run "$bin/streamscope_workloads --variant sequential" \
    --run "$bin/streamscope_workloads --variant overlapped" --repeat 2 --output-dir "$W/cmp" \
    -o "$W/verdict.txt" --nvtx measured
  rc=$?; cat "$W/verdict.txt"; ls "$W/cmp"
  check "[ $rc = 0 ] && [ -f '$W/cmp/a-2.sqlite' ] && [ -f '$W/cmp/b-2.sqlite' ] && grep -q VERIFIED '$W/verdict.txt'" "compare --run"
  echo "=== workloads run --output-dir"
  "$bin/streamscope" workloads run overlapped --output-dir "$W/wl" --no-report; rc=$?
  check "[ $rc = 0 ] && [ -f '$W/wl/overlapped.sqlite' ]" "workloads run --output-dir"
  echo "=== report --progress on the recorded trace"
  "$bin/streamscope" report "$W/t.sqlite" --nvtx measured --progress >/dev/null 2>"$W/progress.err"; rc=$?
  cat "$W/progress.err"
  check "[ $rc = 0 ] && grep -q 'streamscope: loading' '$W/progress.err'" "report --progress"
  [ $fail = 0 ] && echo "ALL OK"
} >"$log" 2>&1
cat "$log"
rm -rf "$W"
exit $fail
