#!/usr/bin/env bash
# Nsight Systems import benchmark: per-op load time of a large synthetic nsys
# export (bench/nsys/gen_nsys_export.py, export schema 3.x layout) next to
# the same content as a streamscope trace (written by the `convert` writer),
# both through LoadTraceFile; then `streamscope report` end to end on both.
# Prints a markdown section for bench/results/nsys.md.
#
#   BUILD_DIR=build bench/nsys/run_nsys_bench.sh [NUM_OPS...]   (default: 1000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
BENCH_DIR=${BENCH_DIR:-/tmp/streamscope-nsys-bench}
REPEAT=${REPEAT:-3}
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(1000000)
BIN=$BUILD_DIR/bin
[ -x "$BIN/nsys_load_bench" ] || { echo "missing $BIN/nsys_load_bench: build it first" >&2; exit 1; }
mkdir -p "$BENCH_DIR"

# Best wall time of REPEAT runs of a command, in seconds.
best_wall() {
  local best=999999
  for _ in $(seq "$REPEAT"); do
    local t0 t1 s
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc)
    if (( $(echo "$s < $best" | bc) )); then best=$s; fi
  done
  printf "%.3f" "$best"
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load average: $(cut -d' ' -f1-3 /proc/loadavg)  repeat: best of $REPEAT"
echo "command: BUILD_DIR=$BUILD_DIR bench/nsys/run_nsys_bench.sh ${SIZES[*]}"
echo
echo "| GPU ops | API calls | export file | trace file | load export: wall (ns/op), cpu (ns/op) | load trace: wall (ns/op), cpu (ns/op) | export / trace: wall, cpu | report export | report trace |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in "${SIZES[@]}"; do
  export_path=$BENCH_DIR/nsys-$n.sqlite
  trace_path=$BENCH_DIR/converted-$n.sqlite
  [ -f "$export_path" ] || python3 bench/nsys/gen_nsys_export.py "$export_path" "$n" >&2
  out=$("$BIN/nsys_load_bench" "$export_path" "$trace_path" --repeat "$REPEAT")
  ops=$(awk '/^ops/ {print $2}' <<<"$out"); api=$(awk '/^ops/ {print $4}' <<<"$out")
  # "nsys_export WALL s NS ns/op cpu CPU s NS ns/op"
  e=$(awk '/^nsys_export/ {printf "%s s (%s), %s s (%s)", $2, $4, $7, $9}' <<<"$out")
  t=$(awk '/^streamscope_trace/ {printf "%s s (%s), %s s (%s)", $2, $4, $7, $9}' <<<"$out")
  ratio=$(awk '/^ratio/ {printf "%sx, %sx", $3, $5}' <<<"$out")
  report_e="n/a"; report_t="n/a"
  if [ -x "$BIN/streamscope" ] && "$BIN/streamscope" report --help >/dev/null 2>&1; then
    report_e="$(best_wall "$BIN/streamscope" report "$export_path") s"
    report_t="$(best_wall "$BIN/streamscope" report "$trace_path") s"
  fi
  echo "| $ops | $api | $(du -m "$export_path" | cut -f1) MiB | $(du -m "$trace_path" | cut -f1) MiB | $e | $t | $ratio | $report_e | $report_t |"
done
