#!/usr/bin/env bash
# GPU tests of the collector (run by CTest with label gpu, and by
# collector_gpu_check.sh on the GPU machine).
#
#   collector_gpu_test.sh known_ops injection|static|preload|run
#   collector_gpu_test.sh memory_ops injection
#   collector_gpu_test.sh pytorch run
#   collector_gpu_test.sh faults run
#
# Binaries come from $STREAMSCOPE_BUILD_DIR (default build/): bin/streamscope,
# bin/collector_known_ops[_static], bin/collector_other_subscriber,
# lib/libstreamscope_collector.so. Traces and logs go to
# $STREAMSCOPE_TEST_OUT (default: a fresh temporary folder).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${STREAMSCOPE_BUILD_DIR:-$ROOT/build}
BIN=$BUILD/bin
LIB=$BUILD/lib/libstreamscope_collector.so
OUTDIR=${STREAMSCOPE_TEST_OUT:-$(mktemp -d /tmp/streamscope-gpu-test-XXXXXX)}
mkdir -p "$OUTDIR"
CHECK="python3 $HERE/collector_check_trace.py"
what=$1 mode=${2:-run}
fail=0
expect() {  # expect DESCRIPTION COMMAND...
  local d=$1; shift
  if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}
clean_env() { env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH -u LD_PRELOAD "$@"; }

case "$what:$mode" in
  known_ops:injection|known_ops:static)
    prog=$BIN/collector_known_ops; [ "$mode" = static ] && prog=$BIN/collector_known_ops_static
    trace=$OUTDIR/known_ops_$mode.sqlite; rm -f "$trace"
    # memory is opt-in: the injection case records it (and checks its rows),
    # the static case the default kinds.
    kinds=default; [ "$mode" = injection ] && kinds=+memory
    clean_env CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$trace STREAMSCOPE_KINDS=$kinds "$prog" >"$OUTDIR/$mode.stdout" 2>"$OUTDIR/$mode.stderr"
    rc=$?
    cat "$OUTDIR/$mode.stdout" "$OUTDIR/$mode.stderr"
    expect "exit status 0" [ $rc = 0 ]
    expect "no collector complaint" [ ! -s "$OUTDIR/$mode.stderr" ]
    $CHECK known_ops "$trace" || fail=1
    ;;
  memory_ops:injection)
    trace=$OUTDIR/memory_ops.sqlite; rm -f "$trace"
    clean_env CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$trace STREAMSCOPE_KINDS=+memory "$BIN/collector_memory_ops" >"$OUTDIR/memory_ops.stdout" 2>"$OUTDIR/memory_ops.stderr"
    rc=$?
    cat "$OUTDIR/memory_ops.stdout" "$OUTDIR/memory_ops.stderr"
    expect "exit status 0" [ $rc = 0 ]
    expect "no collector complaint" [ ! -s "$OUTDIR/memory_ops.stderr" ]
    $CHECK memory_ops "$trace" || fail=1
    # The same program untraced prints the same line (the collector changes nothing).
    clean_env "$BIN/collector_memory_ops" >"$OUTDIR/memory_ops_plain.stdout" 2>&1
    expect "untraced run also succeeds" [ $? = 0 ]
    ;;
  known_ops:preload)
    trace=$OUTDIR/known_ops_preload.sqlite; rm -f "$trace"
    clean_env LD_PRELOAD=$LIB STREAMSCOPE_OUTPUT=$trace "$BIN/collector_known_ops"
    expect "exit status 0" [ $? = 0 ]
    $CHECK known_ops "$trace" || fail=1
    ;;
  known_ops:run)
    rm -f "$OUTDIR"/known_ops_run_*.sqlite
    clean_env "$BIN/streamscope" run -o "$OUTDIR/known_ops_run_%p.sqlite" -- "$BIN/collector_known_ops" --exit-code 3 \
      >"$OUTDIR/run.stdout" 2>"$OUTDIR/run.stderr"
    rc=$?
    cat "$OUTDIR/run.stdout" "$OUTDIR/run.stderr"
    expect "exit status of the command passed through (3)" [ $rc = 3 ]
    expect "application output passed through" grep -q "known_ops: ok" "$OUTDIR/run.stdout"
    expect "trace location printed" grep -q "streamscope: trace of pid" "$OUTDIR/run.stderr"
    trace=$(ls "$OUTDIR"/known_ops_run_*.sqlite 2>/dev/null | head -1)
    expect "one trace named by pid" [ -n "$trace" ]
    [ -n "$trace" ] && { $CHECK known_ops "$trace" || fail=1; }
    ;;
  pytorch:run)
    rm -f "$OUTDIR"/torch_*.sqlite
    clean_env "$BIN/streamscope" run -o "$OUTDIR/torch_%p.sqlite" -- python3 "$ROOT/tests/collector/torch_ops.py" \
      >"$OUTDIR/torch.stdout" 2>"$OUTDIR/torch.stderr"
    rc=$?
    cat "$OUTDIR/torch.stdout" "$OUTDIR/torch.stderr"
    expect "python exit status 0" [ $rc = 0 ]
    trace=$(ls "$OUTDIR"/torch_*.sqlite 2>/dev/null | head -1)
    expect "pytorch trace written" [ -n "$trace" ]
    [ -n "$trace" ] && { $CHECK pytorch "$trace" || fail=1; }
    ;;
  fast_flush:run)
    # A periodic flush every 2 ms while copies and kernels are queued and
    # running: every op must arrive with its timestamps (a forced periodic
    # flush handed over incomplete records: 15 of 386 ops lost here).
    trace=$OUTDIR/fast_flush.sqlite; rm -f "$trace"
    clean_env STREAMSCOPE_FLUSH_MS=2 "$BIN/streamscope" run -o "$trace" -- \
      "$BIN/streamscope_workloads" --variant overlapped --size large >"$OUTDIR/fast_flush.stdout" 2>&1
    expect "fast flush: workload exit status 0" [ $? = 0 ]
    counts=$(python3 "$HERE/count_untimed_ops.py" "$trace")
    echo "fast flush: ops and zero-timestamp ops: $counts"
    expect "fast flush: ops recorded" [ "${counts%% *}" -gt 300 ]
    expect "fast flush: no op without timestamps" [ "${counts##* }" = 0 ]
    ;;
  faults:run)
    KO=$BIN/collector_known_ops
    # Reference output without the collector.
    clean_env "$KO" --exit-code 5 >"$OUTDIR/plain.stdout" 2>&1
    expect "plain run exits 5" [ $? = 5 ]
    run_case() {  # run_case NAME EXPECTED_STDERR_PATTERN ENV... -- CMD...
      local name=$1 pattern=$2; shift 2
      local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
      clean_env "${envs[@]}" "$@" >"$OUTDIR/$name.stdout" 2>"$OUTDIR/$name.stderr"
      local rc=$?
      echo "--- $name: rc=$rc stderr: $(cat "$OUTDIR/$name.stderr")"
      echo "$rc"  >"$OUTDIR/$name.rc"
      expect "$name: one clear line on stderr" [ "$(grep -c "^streamscope: .*$pattern" "$OUTDIR/$name.stderr")" = 1 ]
    }
    run_case unwritable "not recording" CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=/nonexistent/dir/t.sqlite -- "$KO" --exit-code 5
    expect "unwritable: same exit status" [ "$(cat "$OUTDIR/unwritable.rc")" = 5 ]
    expect "unwritable: same output" cmp -s "$OUTDIR/plain.stdout" "$OUTDIR/unwritable.stdout"
    echo precious >"$OUTDIR/exists.sqlite"
    run_case clobber "already exists" CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$OUTDIR/exists.sqlite -- "$KO" --exit-code 5
    expect "clobber: file untouched" grep -qx precious "$OUTDIR/exists.sqlite"
    expect "clobber: same exit status" [ "$(cat "$OUTDIR/clobber.rc")" = 5 ]
    ln -sf "$OUTDIR/victim" "$OUTDIR/link.sqlite"
    run_case symlink "" CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$OUTDIR/link.sqlite STREAMSCOPE_OVERWRITE=1 -- "$KO" --exit-code 5
    expect "symlink: target not created" [ ! -e "$OUTDIR/victim" ]
    run_case nocupti "CUPTI" CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$OUTDIR/nocupti.sqlite STREAMSCOPE_CUPTI_LIB=/nonexistent/libcupti.so.13 -- "$KO" --exit-code 5
    expect "missing CUPTI: same exit status" [ "$(cat "$OUTDIR/nocupti.rc")" = 5 ]
    expect "missing CUPTI: same output" cmp -s "$OUTDIR/plain.stdout" "$OUTDIR/nocupti.stdout"
    run_case badkinds "STREAMSCOPE_KINDS" CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$OUTDIR/bad.sqlite STREAMSCOPE_KINDS=kernels -- "$KO" --exit-code 5
    expect "bad kinds: same exit status" [ "$(cat "$OUTDIR/badkinds.rc")" = 5 ]
    run_case subscriber "another CUPTI client" CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$OUTDIR/sub.sqlite -- "$BIN/collector_other_subscriber"
    expect "other subscriber: program unchanged" grep -q "other_subscriber: ok" "$OUTDIR/subscriber.stdout"
    expect "other subscriber: exit 0" [ "$(cat "$OUTDIR/subscriber.rc")" = 0 ]
    # Non-CUDA process under LD_PRELOAD: silent, unchanged.
    out=$(clean_env LD_PRELOAD=$LIB sh -c 'echo plain; exit 4' 2>&1); rc=$?
    expect "LD_PRELOAD into a non-CUDA process is silent" [ "$out" = plain ] && expect "and keeps its exit status" [ $rc = 4 ]
    # SIGTERM through `streamscope run`: final flush, status 128+15.
    rm -f "$OUTDIR/sigterm.sqlite"
    # (exec: $! must be the process itself, not a subshell around it)
    (exec env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH -u LD_PRELOAD "$BIN/streamscope" run --no-summary \
       -o "$OUTDIR/sigterm.sqlite" -- "$KO" --wait-signal >"$OUTDIR/sigterm.stdout" 2>"$OUTDIR/sigterm.stderr") &
    runpid=$!
    for i in $(seq 100); do grep -q ready "$OUTDIR/sigterm.stdout" 2>/dev/null && break; sleep 0.1; done
    t0=$(date +%s.%N)
    kill -TERM $runpid; wait $runpid; rc=$?
    echo "SIGTERM: command ended $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}") s after the signal"
    cat "$OUTDIR/sigterm.stderr"
    expect "SIGTERM: status 143 passed through" [ $rc = 143 ]
    $CHECK signal "$OUTDIR/sigterm.sqlite" 15 || fail=1
    # kill -9: what the periodic flush committed survives.
    rm -f "$OUTDIR/killed.sqlite"*
    (exec env -u NVTX_INJECTION64_PATH -u LD_PRELOAD CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$OUTDIR/killed.sqlite "$KO" --wait-signal >"$OUTDIR/killed.stdout" 2>&1) &
    kpid=$!
    for i in $(seq 100); do grep -q ready "$OUTDIR/killed.stdout" 2>/dev/null && break; sleep 0.1; done
    sleep 1.5; kill -9 $kpid; wait $kpid 2>/dev/null
    $CHECK killed "$OUTDIR/killed.sqlite" || fail=1
    ;;
  *) echo "usage: $0 known_ops injection|static|preload|run | memory_ops injection | pytorch run | faults run"; exit 2 ;;
esac
[ $fail = 0 ] && echo "PASSED: $what $mode" || echo "FAILED: $what $mode (outputs in $OUTDIR)"
exit $fail
