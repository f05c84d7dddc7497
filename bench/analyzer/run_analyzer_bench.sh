#!/usr/bin/env bash
# Analyzer benchmark: times `streamscope report` on synthetic traces of 1M
# and 10M GPU ops next to a plain read of the same rows (bench/analyzer/
# plain_read.cc), with peak memory from /usr/bin/time -v, and prints a
# markdown table with the report / plain-read ratio in wall time (the
# target, meaningful on an idle machine) and in CPU time (user + sys, all
# threads; what a loaded machine still measures), and the load average
# after each size. Traces are generated once into $BENCH_DIR (default
# /tmp/streamscope-bench) and reused.
#
#   BUILD_DIR=build bench/analyzer/run_analyzer_bench.sh [SIZES...]   (default: 1000000 10000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
BENCH_DIR=${BENCH_DIR:-/tmp/streamscope-bench}
REPEAT=${REPEAT:-3}
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(1000000 10000000)
BIN=$BUILD_DIR/bin
for tool in streamscope gen_synthetic_trace plain_read; do
  [ -x "$BIN/$tool" ] || { echo "missing $BIN/$tool: build the project first" >&2; exit 1; }
done
mkdir -p "$BENCH_DIR"

# Runs a command under /usr/bin/time -v; prints "wall_s cpu_s peak_kb".
measure() {
  local log
  log=$(mktemp)
  /usr/bin/time -v "$@" >/dev/null 2>"$log"
  local wall user sys peak
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log")
  user=$(awk -F': ' '/User time/ {print $2}' "$log")
  sys=$(awk -F': ' '/System time/ {print $2}' "$log")
  peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  rm -f "$log"
  printf '%s %.2f %s\n' "$wall" "$(echo "$user + $sys" | bc)" "$peak"
}

# Best (lowest wall) of REPEAT runs.
best() {
  local best_line="" best_wall=999999
  for _ in $(seq "$REPEAT"); do
    local line
    line=$(measure "$@")
    local wall=${line%% *}
    if (( $(echo "$wall < $best_wall" | bc) )); then best_wall=$wall; best_line=$line; fi
  done
  echo "$best_line"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load average: $(cut -d' ' -f1-3 /proc/loadavg)  repeat: best of $REPEAT"
echo
echo "| GPU ops | rows read | file | plain read wall / cpu | report wall / cpu | report peak RSS | report / plain (wall) | report / plain (cpu) | load average |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in "${SIZES[@]}"; do
  trace=$BENCH_DIR/synthetic-$n.sqlite
  if [ ! -f "$trace" ]; then
    "$BIN/gen_synthetic_trace" "$trace" "$n" >&2
  fi
  rows=$("$BIN/plain_read" "$trace" | awk '{print $2}')
  size=$(du -m "$trace" | cut -f1)
  read -r pw pc pk <<<"$(best "$BIN/plain_read" "$trace")"
  read -r rw rc rk <<<"$(best "$BIN/streamscope" report "$trace")"
  ratio=$(printf '%.2f' "$(echo "scale=4; $rw / $pw" | bc)")
  cpu_ratio=$(printf '%.2f' "$(echo "scale=4; $rc / $pc" | bc)")
  echo "| $n | $rows | ${size} MiB | ${pw} s / ${pc} s | ${rw} s / ${rc} s | $((rk / 1024)) MiB | ${ratio}x | ${cpu_ratio}x | $(cut -d' ' -f1-3 /proc/loadavg) |"
done

# Every instance of an NVTX range as its own window (one per 256 ops here):
# per-window cost must follow the ops inside the window, not the trace.
echo
echo "| GPU ops | NVTX 'step' instances | report --nvtx step wall / cpu | peak RSS | per instance | whole-trace report wall |"
echo "|---|---|---|---|---|---|"
for n in "${SIZES[@]}"; do
  trace=$BENCH_DIR/synthetic-$n.sqlite
  instances=$(sqlite3 "$trace" "SELECT count(*) FROM nvtx_range r JOIN string s ON s.id = r.name_id WHERE s.value = 'step'" 2>/dev/null || echo "?")
  read -r sw sc sk <<<"$(best "$BIN/streamscope" report --nvtx step "$trace")"
  read -r rw rc rk <<<"$(best "$BIN/streamscope" report "$trace")"
  per=$([ "$instances" != "?" ] && printf '%.0f us' "$(echo "scale=6; $sw * 1000000 / $instances" | bc)" || echo "?")
  echo "| $n | $instances | ${sw} s / ${sc} s | $((sk / 1024)) MiB | $per | ${rw} s |"
done
