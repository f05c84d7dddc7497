#!/usr/bin/env bash
# GPU tests of capture control (CTest label gpu): collector_capture_ranges
# runs 20 steps, step i launching one kernel of i blocks inside NVTX range
# "step", with cudaProfilerStart before step 6 and cudaProfilerStop after
# step 8.
#
#   capture_range_test.sh profiler   --capture-range cudaProfilerApi: kernels of steps 6-8 only
#   capture_range_test.sh nvtx       --capture-range nvtx:step@11-13: kernels of steps 11-13 and
#                                    their three 'step' ranges only
#   capture_range_test.sh paused     --start-paused on 40 steps of 100 ms, 'capture start' 2 s after the
#                                    launch (CUDA's start-up included) and 'capture stop' 1 s later: some
#                                    consecutive steps, not all
#   capture_range_test.sh flight     --flight-recorder 5s --trigger 'nvtx:step>20x' on 300 steps with
#                                    a 20 ms kernel planted in step 150 (others take tens of us): no trace
#                                    but the dumps; the dump triggered by instance 150 holds steps 100-150
#                                    and the Spin kernel, `report --nvtx flight_recorder_trigger` on it
#                                    names Spin; the exit writes the last dump
#
# Binaries from $STREAMSCOPE_BUILD_DIR (default build/); traces and logs in
# $STREAMSCOPE_TEST_OUT (default: a fresh temporary folder).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${STREAMSCOPE_BUILD_DIR:-$ROOT/build}
BIN=$BUILD/bin
export STREAMSCOPE_COLLECTOR=$BUILD/lib/libstreamscope_collector.so
OUTDIR=${STREAMSCOPE_TEST_OUT:-$(mktemp -d /tmp/streamscope-capture-test-XXXXXX)}
mkdir -p "$OUTDIR"
what=$1
trace=$OUTDIR/capture_$what.sqlite
rm -f "$trace"
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LD_PRELOAD STREAMSCOPE_KINDS
prog=$BIN/collector_capture_ranges
case "$what" in
  profiler) "$BIN/streamscope" run --no-summary --capture-range cudaProfilerApi -o "$trace" -- "$prog" 20 ;;
  nvtx) "$BIN/streamscope" run --no-summary --capture-range nvtx:step@11-13 -o "$trace" -- "$prog" 20 ;;
  paused)
    "$BIN/streamscope" run --no-summary --start-paused -o "$trace" -- "$prog" 40 slow &
    runner=$!
    # The program's pid: the child of `run`.
    for _ in $(seq 50); do pid=$(pgrep -P "$runner" -f collector_capture_ranges | head -1); [ -n "$pid" ] && break; sleep 0.05; done
    sleep 2
    "$BIN/streamscope" capture start "$pid" || echo "FAIL capture start"
    sleep 1
    "$BIN/streamscope" capture stop "$pid" || echo "FAIL capture stop"
    wait "$runner"
    ;;
  flight)
    "$BIN/streamscope" run --no-summary --flight-recorder 5s --trigger 'nvtx:step>20x' -o "$trace" -- "$prog" 300 plant=150
    ;;
  *) echo "usage: $0 profiler|nvtx|paused|flight" >&2; exit 2 ;;
esac
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL the program exited $rc"; exit 1; }
if [ "$what" = flight ]; then
  [ ! -e "$trace" ] || { echo "FAIL a trace was written without a trigger"; exit 1; }
  # The dump the planted step triggered (a noisy machine may have fired others).
  dump=
  for d in "${trace%.sqlite}".dump*.sqlite; do
    [ "$(python3 -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(\"select value from metadata where key='trigger_instance'\").fetchone(); print(r[0] if r else '')" "$d")" = 150 ] && dump=$d
  done
  ls "$OUTDIR"
  [ -n "$dump" ] || { echo "FAIL no dump triggered by instance 150"; exit 1; }
  "$BIN/streamscope" report "$dump" --nvtx flight_recorder_trigger > "$OUTDIR/trigger_report.txt" 2>&1
  echo "report exit $?"; head -40 "$OUTDIR/trigger_report.txt"
  trace=$dump
fi
python3 - "$trace" "$what" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
what = sys.argv[2]
q = lambda sql: db.execute(sql).fetchall()
meta = dict(q("SELECT key, value FROM metadata"))
steps = [g for (g,) in q("SELECT grid_x FROM kernel k JOIN string s ON s.id = k.name_id WHERE s.value LIKE '%Tick%' ORDER BY start_ns")]
ranges = q("SELECT count(*) FROM nvtx_range r JOIN string s ON s.id = r.name_id WHERE s.value = 'step'")[0][0]
stats = dict(q("SELECT key, value FROM collector_stat"))
print(f"{what}: steps={steps} step_ranges={ranges} windows={meta.get('capture_windows')} range={meta.get('capture_range')} "
      f"outside={stats.get('records_outside_capture')} end={meta.get('capture_end')}")
ok = True
def expect(cond, text):
    global ok
    print(("ok   " if cond else "FAIL ") + text)
    ok &= bool(cond)
if what == "profiler":
    expect(steps == [6, 7, 8], "kernels of steps 6-8 only")
    expect(meta.get("capture_range") == "cudaProfilerApi", "capture_range in metadata")
elif what == "nvtx":
    expect(steps == [11, 12, 13], "kernels of steps 11-13 only")
    expect(ranges == 3, "the three 'step' ranges of the window")
    expect(meta.get("capture_nvtx_instances") == "20", "20 instances seen")
elif what == "flight":
    expect(meta.get("flight_recorder_trigger") == "nvtx:step>20x", "the dump was triggered by the slow step")
    expect(meta.get("trigger_instance") == "150", "instance 150 fired")
    expect(all(s in steps for s in range(100, 151)), "the slow step and the steps before it are in the dump")
    import glob
    ends = [sqlite3.connect(f).execute("SELECT value FROM metadata WHERE key = 'capture_end'").fetchone()[0]
            for f in glob.glob(sys.argv[1].split(".dump")[0] + ".dump*.sqlite")]
    expect("flight_recorder:normal_exit" in ends, f"the exit wrote a dump too ({len(ends)} dumps)")
    spin = q("SELECT count(*) FROM kernel k JOIN string s ON s.id = k.name_id WHERE s.value LIKE '%Spin%'")[0][0]
    expect(spin == 1, "the planted Spin kernel is in the dump")
    report = open(sys.argv[1].rsplit('/', 1)[0] + "/trigger_report.txt").read()
    expect("Spin" in report, "report on the trigger window names Spin")
    print(f"ring: {meta.get('flight_recorder_bound')} records={meta.get('ring_records')} evicted={meta.get('ring_evicted')}")
else:
    expect(0 < len(steps) < 40, "some steps, not all")
    expect(steps == list(range(steps[0], steps[0] + len(steps))) if steps else False, "consecutive steps")
    expect(len(json.loads(meta.get("capture_windows", "[]"))) == 1, "one window")
expect(meta.get("capture_end", "").endswith("normal_exit") or what == "flight", "trace finished")
# Every kernel kept has its submitting call.
k, ks = q("SELECT count(*), sum(EXISTS (SELECT 1 FROM api_call a WHERE a.correlation_id = k.correlation_id)) FROM kernel k")[0]
expect(k == (ks or 0), f"every kernel has its launch call ({ks}/{k})")
sys.exit(0 if ok else 1)
PY
