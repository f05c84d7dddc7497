#!/usr/bin/env bash
# GPU reliability tests of the collector, one section per call:
#
#   reliability_gpu_test.sh exits|processes|heavy|coexist|workloads|files
#
# Binaries come from $STREAMSCOPE_BUILD_DIR (default build/): bin/streamscope,
# bin/reliability_ops, bin/collector_launch_bound, bin/streamscope_workloads,
# lib/libstreamscope_collector.so. Traces and logs go to
# $STREAMSCOPE_TEST_OUT/<section> (default: a fresh temporary folder).
# Every check prints "ok"/"FAIL"; figures are printed on "figures"/"measure"
# lines. Exit 0 when every check passed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${STREAMSCOPE_BUILD_DIR:-$ROOT/build}
BIN=$BUILD/bin
LIB=$BUILD/lib/libstreamscope_collector.so
REL=$BIN/reliability_ops
section=${1:?usage: $0 exits|processes|heavy|coexist|workloads|files}
D=${STREAMSCOPE_TEST_OUT:-$(mktemp -d /tmp/streamscope-rel-XXXXXX)}/$section
rm -rf "$D"; mkdir -p "$D"
CHECK="python3 $HERE/check_trace.py"
MEASURE="python3 $HERE/measure.py"
fail=0
expect() {  # expect DESCRIPTION COMMAND...
  local d=$1; shift
  if "$@"; then echo "ok   $d"; else echo "FAIL $d"; fail=1; fi
}
check() { $CHECK "$@" || fail=1; }
clean_env() {
  env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH -u LD_PRELOAD -u STREAMSCOPE_OUTPUT \
    -u STREAMSCOPE_OVERWRITE -u STREAMSCOPE_MANIFEST "$@"
}
# traced NAME TRACE CMD...: runs CMD injected, stdout/stderr/rc into $D/NAME.*
traced() {
  local name=$1 trace=$2; shift 2
  clean_env CUDA_INJECTION64_PATH="$LIB" STREAMSCOPE_OUTPUT="$trace" ${EXTRA_ENV:-} "$@" \
    >"$D/$name.out" 2>"$D/$name.err"
  echo $? >"$D/$name.rc"
}
# plain NAME CMD...: the same without the collector.
plain() {
  local name=$1; shift
  clean_env "$@" >"$D/$name.out" 2>"$D/$name.err"
  echo $? >"$D/$name.rc"
}
rc_of() { cat "$D/$1.rc"; }
lines() { grep -c "$2" "$D/$1.err" 2>/dev/null || true; }
same_run() {  # same_run PLAIN TRACED: same stdout and exit status
  expect "$2: same exit status as without the collector ($(rc_of "$1"))" [ "$(rc_of "$1")" = "$(rc_of "$2")" ]
  expect "$2: same stdout as without the collector" cmp -s "$D/$1.out" "$D/$2.out"
}
show_err() { [ -s "$D/$1.err" ] && sed "s/^/  [$1 stderr] /" "$D/$1.err" | head -5; true; }
wait_ready() { for _ in $(seq 300); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# signalled NAME TRACE SIGNAL DELAY [ARGS]: reliability_ops wait ARGS, traced
# (TRACE non-empty) or plain; SIGNAL sent DELAY s after "ready".
signalled() {
  local name=$1 trace=$2 sig=$3 delay=$4; shift 4
  if [ -n "$trace" ]; then
    (exec env -u NVTX_INJECTION64_PATH -u LD_PRELOAD -u STREAMSCOPE_OVERWRITE CUDA_INJECTION64_PATH="$LIB" \
      STREAMSCOPE_OUTPUT="$trace" "$REL" wait "$@" >"$D/$name.out" 2>"$D/$name.err") &
  else
    (exec env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH -u LD_PRELOAD "$REL" wait "$@" \
      >"$D/$name.out" 2>"$D/$name.err") &
  fi
  local pid=$! t0
  wait_ready "$D/$name.out" || echo "  ($name never printed ready)"
  echo "  ($name: $(grep SigIgn /proc/$pid/status 2>/dev/null))"
  sleep "$delay"
  t0=$(date +%s.%N)
  kill -"$sig" $pid
  wait $pid
  echo $? >"$D/$name.rc"
  echo "figures $name: ended $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}") s after SIG$sig, status $(rc_of "$name")"
}
ops() {  # ops UNITS TICK_COPIES LANES: the check_trace arguments for reliability_ops counts
  echo "--ticks $1 --h2d $1 --d2h $2 --memset $(($1 + $3))"
}

case "$section" in
exits)
  # Normal exits: exact op counts, capture_end normal_exit, nothing dropped
  # but, for exit_thread, the 2 s kernel main still waits on when the other
  # thread exits: the final flush hands it over unfinished (zero end), and
  # it is counted, not stored.
  for m in "return 0 100 1 1 0" "exit 5 100 1 1 0" "reset 0 200 2 2 0" "exit_thread 6 150 2 2 1"; do
    set -- $m
    plain "$1.plain" timeout 30 "$REL" "$1"
    traced "$1" "$D/$1.sqlite" timeout 30 "$REL" "$1"
    expect "$1: exit status $2" [ "$(rc_of "$1")" = "$2" ]
    expect "$1: not hung (timeout)" [ "$(rc_of "$1")" != 124 ]
    same_run "$1.plain" "$1"
    expect "$1: nothing on stderr" [ ! -s "$D/$1.err" ]; show_err "$1"
    check "$D/$1.sqlite" $(ops "$3" "$4" "$5") --end normal_exit --no-drops --in-flight "$6" --label "$1"
  done
  # SIGINT/SIGTERM with the default action: every op before the signal, the
  # process dies of the signal as it would untraced.
  for sig in INT TERM; do
    n=$(kill -l $sig)
    signalled "sig$sig.plain" "" $sig 0.2
    signalled "sig$sig" "$D/sig$sig.sqlite" $sig 0.2
    expect "SIG$sig default: status $((128 + n))" [ "$(rc_of "sig$sig")" = $((128 + n)) ]
    same_run "sig$sig.plain" "sig$sig"; show_err "sig$sig"
    check "$D/sig$sig.sqlite" $(ops 100 1 1) --end "signal:$n" --no-drops --label "sig$sig"
    # The application's own handler (installed before or after CUDA starts)
    # decides: 10 more units, status 7, a normal end.
    for when in own-handler own-handler-late; do
      name=sig$sig-$when
      signalled "$name.plain" "" $sig 0.2 --$when
      signalled "$name" "$D/$name.sqlite" $sig 0.2 --$when
      expect "$name: the application's handler ran (status 7)" [ "$(rc_of "$name")" = 7 ]
      expect "$name: it printed so" grep -q "handled signal $n" "$D/$name.out"
      same_run "$name.plain" "$name"; show_err "$name"
      check "$D/$name.sqlite" $(ops 110 2 1) --end normal_exit --no-drops --label "$name"
    done
  done
  # kill -9 1.5 s after the work: all of it was flushed and committed.
  signalled kill9 "$D/kill9.sqlite" KILL 1.5
  expect "kill -9: status 137" [ "$(rc_of kill9)" = 137 ]
  check "$D/kill9.sqlite" $(ops 100 1 1) --end running --no-drops --label kill9
  # Crashes: abort() (SIGABRT) and a null write (SIGSEGV) after 100 units,
  # 1.5 s and 20 units. The collector's crash handler flushes the last 20
  # (less than one flush period old) and finishes the trace, then the
  # signal's default action ends the process as untraced.
  for crash in abort:134:6 segv:139:11; do
    IFS=: read -r mode status n <<<"$crash"
    plain "$mode.plain" "$REL" "$mode"
    traced "$mode" "$D/$mode.sqlite" "$REL" "$mode"
    expect "$mode: status $status" [ "$(rc_of "$mode")" = "$status" ]
    same_run "$mode.plain" "$mode"; show_err "$mode"
    check "$D/$mode.sqlite" $(ops 120 1 1) --end "crash:$n" --label "$mode"
  done
  ;;

processes)
  # fork() before CUDA: parent and two children each initialize CUDA and
  # each gets its own trace (through `streamscope run`, %p in the name).
  clean_env "$BIN/streamscope" run --no-summary -o "$D/fork-%p.sqlite" -- "$REL" fork \
    >"$D/fork.out" 2>"$D/fork.err"; echo $? >"$D/fork.rc"
  expect "fork: status 0" [ "$(rc_of fork)" = 0 ]; show_err fork
  expect "fork: three traces reported by run" [ "$(lines fork 'streamscope: trace of pid')" = 3 ]
  found=""
  for t in "$D"/fork-*.sqlite; do
    n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM kernel k JOIN string s ON s.id=k.name_id WHERE s.value LIKE '%Tick%'\").fetchone()[0])" "$t" 2>/dev/null)
    found="$found $n"
    check "$t" $(ops "${n:-0}" 1 1) --end normal_exit --no-drops --label "fork trace with $n ticks"
  done
  expect "fork: traces hold 40, 50 and 100 units" [ "$(echo $found | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "40 50 100 " ]
  # fork() after CUDA started, child without CUDA: one trace, the parent's.
  traced fork_after_cuda "$D/fac-%p.sqlite" "$REL" fork_after_cuda
  expect "fork_after_cuda: status 0" [ "$(rc_of fork_after_cuda)" = 0 ]
  expect "fork_after_cuda: the child ran" grep -q "child without CUDA" "$D/fork_after_cuda.out"
  expect "fork_after_cuda: nothing on stderr" [ ! -s "$D/fork_after_cuda.err" ]; show_err fork_after_cuda
  set -- "$D"/fac-*.sqlite
  expect "fork_after_cuda: exactly one trace" [ $# = 1 ]
  check "$1" $(ops 110 1 1) --end normal_exit --no-drops --label fork_after_cuda
  # A shell script (no CUDA) starting two CUDA programs: two traces.
  clean_env "$BIN/streamscope" run --no-summary -o "$D/exec-%p.sqlite" -- sh "$HERE/exec_children.sh" "$REL" \
    >"$D/exec.out" 2>"$D/exec.err"; echo $? >"$D/exec.rc"
  expect "exec children: status 0 (children 0 and 5)" [ "$(rc_of exec)" = 0 ]; show_err exec
  expect "exec children: two traces reported by run" [ "$(lines exec 'streamscope: trace of pid')" = 2 ]
  set -- "$D"/exec-*.sqlite
  expect "exec children: two trace files (none for the shell)" [ $# = 2 ]
  for t in "$@"; do check "$t" $(ops 100 1 1) --end normal_exit --no-drops --label "exec child $(basename "$t")"; done
  # A CUDA process that execs itself keeps its pid: the new image writes
  # NAME.exec1.sqlite beside its first image's trace. The first image ends
  # in exec, which runs no exit handlers: it keeps what was flushed (as
  # after kill -9); the second image's trace is complete.
  plain exec_self.plain "$REL" exec_self
  traced exec_self "$D/self-%p.sqlite" "$REL" exec_self
  same_run exec_self.plain exec_self; show_err exec_self
  first=$(ls "$D"/self-*.sqlite 2>/dev/null | grep -v '\.exec1\.' | head -1)
  second=$(ls "$D"/self-*.exec1.sqlite 2>/dev/null | head -1)
  expect "exec_self: the exec'd image has its own trace beside the first (NAME.exec1.sqlite)" [ -n "$first" -a -n "$second" ]
  [ -n "$first" ] && check "$first" --ticks 0:100 --label "exec_self first image"
  [ -n "$second" ] && check "$second" --ticks 100 --end normal_exit --no-drops --label "exec_self second image"
  # 16 host threads launching at once into their own streams.
  traced threads "$D/threads.sqlite" "$REL" threads
  expect "threads: status 0" [ "$(rc_of threads)" = 0 ]; show_err threads
  check "$D/threads.sqlite" $(ops 3200 16 16) --end normal_exit --no-drops --label threads
  python3 - "$D/threads.sqlite" <<'EOF' || fail=1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
streams = db.execute("SELECT count(DISTINCT k.stream_id) FROM kernel k JOIN string s ON s.id=k.name_id WHERE s.value LIKE '%Tick%'").fetchone()[0]
tids = db.execute("SELECT count(DISTINCT tid) FROM api_call a JOIN string s ON s.id=a.name_id WHERE s.value LIKE 'cudaLaunchKernel%'").fetchone()[0]
ok = streams == 16 and tids == 16
print(("ok   " if ok else "FAIL ") + f"threads: ticks on 16 streams from 16 launching threads (found {streams} streams, {tids} threads)")
sys.exit(0 if ok else 1)
EOF
  ;;

heavy)
  LB=$BIN/collector_launch_bound
  # Overhead, side by side: 1M empty kernels + 250k 64-byte copies, with
  # the same 64 MiB buffer cap as the heavy run (and once without the
  # 'memory' kind, whose callbacks cost the most).
  clean_env $MEASURE "$LB" 1000000 250000 >"$D/plain.out" 2>"$D/plain.err"
  EXTRA_ENV="STREAMSCOPE_MAX_BUFFER_MB=64" traced traced "$D/overhead.sqlite" $MEASURE "$LB" 1000000 250000
  EXTRA_ENV="STREAMSCOPE_MAX_BUFFER_MB=64 STREAMSCOPE_KINDS=+memory" traced nomem "$D/nomem.sqlite" $MEASURE "$LB" 1000000 250000
  cat "$D/plain.out" "$D/plain.err" "$D/traced.out" "$D/traced.err" "$D/nomem.out" "$D/nomem.err"
  expect "overhead run: status 0" [ "$(rc_of traced)" = 0 ]
  # Tens of millions of records with a 64 MiB buffer cap: 4M kernels + 1M
  # copies (+100 warm-up kernels) -> ~10M GPU/API records.
  EXTRA_ENV="STREAMSCOPE_MAX_BUFFER_MB=64" traced heavy "$D/heavy.sqlite" $MEASURE "$LB" 4000000 1000000
  cat "$D/heavy.out" "$D/heavy.err"
  expect "heavy: status 0" [ "$(rc_of heavy)" = 0 ]
  ls -la "$D"/*.sqlite
  python3 - "$D/overhead.sqlite" "$D/heavy.sqlite" "$D/plain.err" "$D/traced.err" "$D/heavy.err" "$D/nomem.err" <<'EOF' || fail=1
import re, sqlite3, sys
fails = 0
def expect(what, cond):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1
def measure(path):
    m = re.search(r"measure: rc=(\d+) wall_s=([\d.]+) maxrss_mb=(\d+)", open(path).read())
    return (float(m.group(2)), int(m.group(3))) if m else (float("nan"), -1)
for path, kernels, copies in ((sys.argv[1], 1000100, 250000), (sys.argv[2], 4000100, 1000000)):
    db = sqlite3.connect(path)
    k = db.execute("SELECT count(*) FROM kernel").fetchone()[0]
    c = db.execute("SELECT count(*) FROM memcpy").fetchone()[0]
    a = db.execute("SELECT count(*) FROM api_call").fetchone()[0]
    stats = dict(db.execute("SELECT key, value FROM collector_stat").fetchall())
    dropped = int(stats.get("records_dropped_cupti", 0)) + int(stats.get("records_dropped_writer", 0))
    print(f"figures {path}: kernels={k} copies={c} api_calls={a} records_written={stats.get('records_written')} "
          f"dropped_cupti={stats.get('records_dropped_cupti')} dropped_writer={stats.get('records_dropped_writer')} "
          f"buffers_request_denied={stats.get('buffers_request_denied')} buffers_completed={stats.get('buffers_completed')} "
          f"flushes={stats.get('flushes')} capture_end={dict(db.execute('SELECT key,value FROM metadata').fetchall()).get('capture_end')}")
    complete = k == kernels and c == copies
    expect(f"{path}: every op recorded, or the loss is counted (kernels {k}/{kernels}, copies {c}/{copies}, dropped {dropped})",
           (complete and dropped == 0) or (not complete and dropped > 0 and k <= kernels and c <= copies))
plain_s, plain_rss = measure(sys.argv[3])
traced_s, traced_rss = measure(sys.argv[4])
heavy_s, heavy_rss = measure(sys.argv[5])
nomem_s, nomem_rss = measure(sys.argv[6])
print(f"figures overhead (1M kernels + 250k copies, cap 64 MiB): untraced {plain_s:.2f} s {plain_rss} MB, "
      f"traced {traced_s:.2f} s {traced_rss} MB (ratio {traced_s / plain_s:.2f}), with kind memory (+memory) "
      f"{nomem_s:.2f} s {nomem_rss} MB (ratio {nomem_s / plain_s:.2f}); heavy (4M kernels + 1M copies, "
      f"cap 64 MiB): {heavy_s:.2f} s, peak RSS {heavy_rss} MB = untraced + {heavy_rss - plain_rss} MB")
# Buffers are recycled, and the writer's queue of callback records and its
# finalize sorts are bounded: with four times the records under the same
# cap, peak RSS may grow only by what the two capped queues (CUPTI buffers,
# callback batches: 64 MiB each) can hold beyond the smaller run's use.
expect(f"heavy: peak RSS {heavy_rss} MB <= the 3M-record run's {traced_rss} MB + 2 x 64 MiB (4x the records)",
       heavy_rss <= traced_rss + 128)
sys.exit(1 if fails else 0)
EOF
  rm -f "$D"/heavy.sqlite* "$D"/overhead.sqlite* "$D"/nomem.sqlite*
  ;;

coexist)
  # torch.profiler started inside a process streamscope traces, and
  # torch.profiler entered before CUDA (so before the collector starts).
  for mode in inside first; do
    plain "torch_$mode.plain" timeout 180 python3 "$HERE/torch_coexist.py" $mode
    traced "torch_$mode" "$D/torch_$mode.sqlite" timeout 180 python3 "$HERE/torch_coexist.py" $mode
    expect "torch $mode: status 0, not hung" [ "$(rc_of "torch_$mode")" = 0 ]
    expect "torch $mode: computation right" grep -q "result=ok" "$D/torch_$mode.out"
    sed "s/^/  [torch_$mode stdout] /" "$D/torch_$mode.out" "$D/torch_$mode.plain.out"
    sed "s/^/  [torch_$mode stderr] /" "$D/torch_$mode.err" | grep -v Warning | head -8
    expect "torch $mode: exactly one streamscope line says who records what" \
      [ "$(lines "torch_$mode" '^streamscope: ')" = 1 ]
    [ -f "$D/torch_$mode.sqlite" ] && python3 "$HERE/torch_phases.py" "$D/torch_$mode.sqlite" "$D/torch_$mode.out"
  done
  ;;

workloads)
  # Every reference workload, with and without the collector: same stdout
  # (timing figures *_ms/_us/_ns=<number> replaced by T), same exit status.
  . "$ROOT/tests/workloads/fixture_args.sh"
  variants=$("$BIN/streamscope_workloads" --list 2>/dev/null | awk '{print $1}' | grep -E '^[a-z_]+$' | tr '\n' ' ')
  [ -n "$variants" ] || variants="$FIXTURE_VARIANTS peer_overlap"
  echo "variants: $variants"
  norm() { sed -E 's/([A-Za-z_]*_(ms|us|ns))=[0-9.]+/\1=T/g' "$1"; }
  for v in $variants; do
    plain "$v.plain" timeout 120 "$BIN/streamscope_workloads" --variant "$v" $(fixture_args "$v")
    clean_env timeout 120 "$BIN/streamscope" run --no-summary -o "$D/$v-%p.sqlite" -- \
      "$BIN/streamscope_workloads" --variant "$v" $(fixture_args "$v") >"$D/$v.out" 2>"$D/$v.err"
    echo $? >"$D/$v.rc"
    expect "$v: same exit status ($(rc_of "$v.plain") / $(rc_of "$v"))" [ "$(rc_of "$v.plain")" = "$(rc_of "$v")" ]
    if [ "$v" = racy ]; then  # the race may go either way in any run
      expect "$v: same stdout apart from the validation result" \
        [ "$(norm "$D/$v.plain.out" | sed 's/validation=.*//')" = "$(norm "$D/$v.out" | sed 's/validation=.*//')" ]
    else
      expect "$v: same stdout (timings normalized)" [ "$(norm "$D/$v.plain.out")" = "$(norm "$D/$v.out")" ]
    fi
    expect "$v: a trace was written" [ "$(lines "$v" 'streamscope: trace of pid')" = 1 ]
    grep -v "streamscope: trace of pid" "$D/$v.err" | sed "s/^/  [$v stderr] /" | head -3
    head -1 "$D/$v.out"
  done
  ;;

files)
  KO="$REL return"
  plain ref $KO
  one_line() {  # one_line NAME PATTERN: exactly one streamscope line, matching
    expect "$1: one stderr line ($(head -1 "$D/$1.err"))" [ "$(wc -l <"$D/$1.err")" = 1 ]
    expect "$1: it says '$2'" grep -q "^streamscope: .*$2" "$D/$1.err"
    same_run ref "$1"
  }
  # An existing file is never replaced unless asked.
  echo precious >"$D/exists.sqlite"
  traced exists "$D/exists.sqlite" $KO
  one_line exists "already exists"
  expect "exists: file untouched" grep -qx precious "$D/exists.sqlite"
  EXTRA_ENV="STREAMSCOPE_OVERWRITE=1" traced overwrite "$D/exists.sqlite" $KO
  same_run ref overwrite
  check "$D/exists.sqlite" $(ops 100 1 1) --end normal_exit --label overwrite
  # Symlinks are never followed, with or without overwrite; dangling ones
  # do not create their target.
  echo precious >"$D/victim"
  ln -s "$D/victim" "$D/link.sqlite"
  traced symlink "$D/link.sqlite" $KO
  one_line symlink "not recording"
  EXTRA_ENV="STREAMSCOPE_OVERWRITE=1" traced symlink_force "$D/link.sqlite" $KO
  one_line symlink_force "not recording"
  expect "symlink: victim untouched" grep -qx precious "$D/victim"
  expect "symlink: still a symlink" [ -L "$D/link.sqlite" ]
  ln -s "$D/nowhere" "$D/dangling.sqlite"
  traced dangling "$D/dangling.sqlite" $KO
  one_line dangling "not recording"
  expect "dangling: target not created" [ ! -e "$D/nowhere" ]
  # Symlinks planted at the companion files: not written through.
  for s in -wal -shm -journal; do echo precious >"$D/victim$s"; ln -s "$D/victim$s" "$D/planted.sqlite$s"; done
  traced planted "$D/planted.sqlite" $KO
  same_run ref planted; show_err planted
  for s in -wal -shm -journal; do expect "planted $s: victim untouched" grep -qx precious "$D/victim$s"; done
  # Unwritable directory: a read-only mount (root ignores file modes).
  mkdir -p "$D/ro"
  if mount -t tmpfs -o ro,size=64k tmpfs "$D/ro" 2>"$D/mount.err"; then
    traced readonly "$D/ro/t.sqlite" $KO
    one_line readonly "not recording"
    umount "$D/ro"
  else
    echo "NOTE mount not permitted ($(cat "$D/mount.err")): unwritable directory tested as /proc/self/fdinfo"
    traced readonly "/proc/self/fdinfo/t.sqlite" $KO
    one_line readonly "not recording"
  fi
  # A disk that fills up during the run (1 MiB tmpfs: the empty trace takes
  # ~440 KiB, 20000 units need ~10 MB).
  mkdir -p "$D/full"
  if mount -t tmpfs -o size=1m tmpfs "$D/full" 2>"$D/mount.err"; then
    plain many.plain "$REL" many 20000
    traced full "$D/full/t.sqlite" "$REL" many 20000
    expect "full disk: same exit status" [ "$(rc_of many.plain)" = "$(rc_of full)" ]
    expect "full disk: same stdout" cmp -s "$D/many.plain.out" "$D/full.out"
    expect "full disk: one stderr line ($(head -3 "$D/full.err" | tr '\n' '|'))" [ "$(wc -l <"$D/full.err")" = 1 ]
    expect "full disk: it says writing failed" grep -q "^streamscope: writing trace .* failed" "$D/full.err"
    ls -la "$D/full"; df -k "$D/full" | tail -1
    # What was committed before the disk filled is a sound database.
    cp "$D"/full/t.sqlite* "$D/" && check "$D/t.sqlite" --label "full disk, what is left"
    # A 64 KiB tmpfs: not even the empty trace fits. One line, no hang,
    # no half-made trace left behind.
    umount "$D/full"; mount -t tmpfs -o size=64k tmpfs "$D/full"
    traced small "$D/full/t.sqlite" timeout 60 $KO
    expect "small disk: not hung" [ "$(rc_of small)" != 124 ]
    one_line small "not recording"
    expect "small disk: no half-made trace left" [ ! -e "$D/full/t.sqlite" ]
    ls -la "$D/full"
    umount "$D/full"
  else
    echo "NOTE mount not permitted ($(cat "$D/mount.err")): full disk not tested here (see writer_failure_test: RLIMIT_FSIZE)"
  fi
  ;;
*) echo "usage: $0 exits|processes|heavy|coexist|workloads|files"; exit 2 ;;
esac
[ $fail = 0 ] && echo "PASSED: reliability $section" || echo "FAILED: reliability $section (outputs in $D)"
exit $fail
