#!/usr/bin/env bash
# Every GPU check of capture control and of the runtime-query filter, on the
# lent GPU machine, with the prebuilt build folder (nothing is built):
#  1. capture ranges (tools/gpu/capture_range_test.sh profiler|nvtx|paused):
#     each prints ok/FAIL lines;
#  2. paused cost: the launch-bound PyTorch loop (20k x.add_(1),
#     tools/gpu/launch_bound_torch.py) plain, under `run --start-paused`
#     never started, and under the default capture, REPS interleaved runs,
#     medians and ratios (paused/plain is what a paused session costs);
#  3. flight recorder on the same loop: `--flight-recorder 30s` against the
#     default capture and plain (REPS interleaved runs, medians), the
#     process's peak RSS under each (/usr/bin/time), and the time to dump:
#     `streamscope capture dump PID` timed while a 400k-launch loop runs
#     (the ring then holds 30 s of it, up to its 500k-record cap);
#  4. tools/gpu/runtime_query_overhead.sh (default capture vs plain on the
#     same loop, target <= 1.35x; the 200k-launch C++ bench).
# Everything lands in $OUT; the result is $OUT/summary.txt.
#   OUT=/tmp/cc tools/gpu/capture_control_check.sh [BUILD_DIR=build] [REPS=9]
set -u
: "${OUT:?set OUT to the output folder}"
BUILD=$(cd "${1:-build}" && pwd) || exit 2
REPS=${2:-9}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$BUILD/bin
export STREAMSCOPE_COLLECTOR=$BUILD/lib/libstreamscope_collector.so
export STREAMSCOPE_BUILD_DIR=$BUILD
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset STREAMSCOPE_KINDS CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
mkdir -p "$OUT"
S=$OUT/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
secs() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' | tail -1; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "nan"}'; }

say "# capture control GPU check ($(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1))"
say "## 1. capture ranges"
for check in profiler nvtx paused flight; do
  STREAMSCOPE_TEST_OUT=$OUT/range_$check timeout 120 "$HERE/capture_range_test.sh" "$check" > "$OUT/range_$check.log" 2>&1
  say "$check: exit $? | $(grep -E '^(ok|FAIL)|steps=' "$OUT/range_$check.log" | tr '\n' ';')"
done

say "## 2. paused vs untraced (torch 20k x.add_(1), $REPS interleaved runs)"
LOOP=$HERE/launch_bound_torch.py
for cfg in plain paused default; do : > "$OUT/loop_$cfg.txt"; done
for rep in $(seq "$REPS"); do
  python3 "$LOOP" 20000 2>>"$OUT/loop_errors.log" | secs >> "$OUT/loop_plain.txt"
  "$BIN/streamscope" run --no-summary --force --start-paused -o "$OUT/paused.sqlite" -- python3 "$LOOP" 20000 \
    2>>"$OUT/loop_errors.log" | secs >> "$OUT/loop_paused.txt"
  "$BIN/streamscope" run --no-summary --force -o "$OUT/default.sqlite" -- python3 "$LOOP" 20000 \
    2>>"$OUT/loop_errors.log" | secs >> "$OUT/loop_default.txt"
done
p=$(median < "$OUT/loop_plain.txt"); z=$(median < "$OUT/loop_paused.txt"); d=$(median < "$OUT/loop_default.txt")
say "median timed loop: plain ${p}s, paused ${z}s, default ${d}s; paused/plain $(awk "BEGIN{printf \"%.3f\", $z/$p}"), default/plain $(awk "BEGIN{printf \"%.3f\", $d/$p}")"
say "paused trace: $(python3 -c "
import sqlite3,sys; db=sqlite3.connect('$OUT/paused.sqlite')
print('kernels', db.execute('select count(*) from kernel').fetchone()[0], 'api_calls', db.execute('select count(*) from api_call').fetchone()[0],
      'outside', dict(db.execute('select key,value from collector_stat')).get('records_outside_capture'))" 2>&1)"

say "## 3. flight recorder: overhead, memory, time to dump"
TIMEV=/usr/bin/time; [ -x "$TIMEV" ] || TIMEV="python3 $HERE/../../bench/time_shim.py"
rss() { sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\).*/\1/p' "$1" | tail -1; }
for cfg in plain default flight; do : > "$OUT/fr_$cfg.txt"; : > "$OUT/fr_rss_$cfg.txt"; done
for rep in $(seq "$REPS"); do
  $TIMEV -v python3 "$LOOP" 20000 2>"$OUT/fr_time.txt" | secs >> "$OUT/fr_plain.txt"; rss "$OUT/fr_time.txt" >> "$OUT/fr_rss_plain.txt"
  $TIMEV -v "$BIN/streamscope" run --no-summary --force -o "$OUT/frd.sqlite" -- python3 "$LOOP" 20000 \
    2>"$OUT/fr_time.txt" | secs >> "$OUT/fr_default.txt"; rss "$OUT/fr_time.txt" >> "$OUT/fr_rss_default.txt"
  rm -f "$OUT"/frf*.sqlite
  $TIMEV -v "$BIN/streamscope" run --no-summary --force --flight-recorder 30s -o "$OUT/frf.sqlite" -- python3 "$LOOP" 20000 \
    2>"$OUT/fr_time.txt" | secs >> "$OUT/fr_flight.txt"; rss "$OUT/fr_time.txt" >> "$OUT/fr_rss_flight.txt"
done
p=$(median < "$OUT/fr_plain.txt"); d=$(median < "$OUT/fr_default.txt"); f=$(median < "$OUT/fr_flight.txt")
say "median timed loop: plain ${p}s, default ${d}s, flight recorder ${f}s; flight/default $(awk "BEGIN{printf \"%.3f\", $f/$d}"), flight/plain $(awk "BEGIN{printf \"%.3f\", $f/$p}")"
say "peak RSS (KiB, median; the largest process of the run: run itself or the program): plain $(median < "$OUT/fr_rss_plain.txt"), default $(median < "$OUT/fr_rss_default.txt"), flight $(median < "$OUT/fr_rss_flight.txt")"
say "exit dump: $(ls "$OUT"/frf*.dump*.sqlite 2>/dev/null | head -1) $(python3 -c "
import sqlite3,glob; f=sorted(glob.glob('$OUT/frf*.dump1.sqlite'))
db=sqlite3.connect(f[0]) if f else None
print(dict(db.execute(\"select key,value from metadata where key like 'ring%' or key like 'flight%'\").fetchall()) if db else 'none')" 2>&1)"
# Time to dump a full ring while the program runs.
rm -f "$OUT"/frl*.sqlite
"$BIN/streamscope" run --no-summary --force --flight-recorder 30s -o "$OUT/frl.sqlite" -- python3 "$LOOP" 400000 \
  > "$OUT/fr_long.txt" 2>&1 &
runner=$!
for _ in $(seq 100); do pid=$(pgrep -P "$runner" -f launch_bound_torch | head -1); [ -n "$pid" ] && break; sleep 0.05; done
sleep 4
t0=$(date +%s.%N); "$BIN/streamscope" capture dump "$pid" --timeout-ms 60000 >> "$OUT/fr_long.txt" 2>&1; t1=$(date +%s.%N)
wait "$runner"
say "time to dump (capture dump PID, from the command to the file written): $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; $(python3 -c "
import sqlite3; db=sqlite3.connect('$OUT/frl.dump1.sqlite')
m=dict(db.execute('select key,value from metadata').fetchall())
print('records', m.get('ring_records'), 'evicted', m.get('ring_evicted'), 'span_ms', (int(m.get('ring_last_ns',0))-int(m.get('ring_first_ns',0)))//1000000, 'kernels', db.execute('select count(*) from kernel').fetchone()[0])" 2>&1)"

say "## 4. runtime queries left out (tools/gpu/runtime_query_overhead.sh)"
OUT=$OUT/runtime_query "$HERE/runtime_query_overhead.sh" "$BUILD" "$REPS" > "$OUT/runtime_query.log" 2>&1
cat "$OUT/runtime_query/summary.txt" >> "$S" 2>/dev/null
