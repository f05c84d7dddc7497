# Sourced by the export benchmarks (run_export_bench.sh,
# run_perfetto_proto_bench.sh): their shared set-up and measuring.
#
#   . "$(dirname "$0")/export_bench_common.sh" [BUILD_DIR] [ITERATIONS]
#
# Sets repo, build (default build), iterations (default 250000), ss
# (bin/streamscope), gen (bin/make_export_trace, target make_export_trace,
# tests/analyzer/export) and work (a temporary folder removed on exit);
# exits 2 when a binary is missing. Defines:
#   measure NAME CMD...  runs CMD under /usr/bin/time -v (TIME_BIN: another
#                        with its output, e.g. bench/time_shim.py), stdout to
#                        $work/NAME.out; sets wall (s), cpu (user+sys s)
#                        and rss (peak MiB)
#   generate_trace       writes $work/trace.sqlite with 4 GPU ops, 5 API
#                        calls and an NVTX range per iteration
#                        (tests/analyzer/export/export_fixture_trace.h);
#                        sets gen_s and trace_mb
#   machine_line         "Machine: <cpu>, <n> cores, <n> GiB RAM, <kernel>."
#   build_line           "Build: <type>, commit <sha>" (no final period)
#   trace_lines          the first two lines describing the trace
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-build}
iterations=${2:-250000}
ss="$build/bin/streamscope"
gen="$build/bin/make_export_trace"
for b in "$ss" "$gen"; do
  [ -x "$b" ] || { echo "missing $b: cmake --build $build --target streamscope make_export_trace" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {
  local name=$1
  shift
  "${TIME_BIN:-/usr/bin/time}" -v "$@" > "$work/$name.out" 2> "$work/$name.time"
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$work/$name.time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/$name.time")
}

generate_trace() {
  echo "generating a trace with $((iterations * 4)) GPU ops..."
  local start
  start=$(date +%s.%N)
  "$gen" "$work/trace.sqlite" "$iterations" --no-jitter
  gen_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b-a}')
  trace_mb=$(awk -v b="$(stat -c %s "$work/trace.sqlite")" 'BEGIN {printf "%.0f", b/1e6}')
}

machine_line() {
  echo "Machine: $(lscpu | awk -F': +' '/Model name/ {print $2; exit}'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(uname -sr)."
}

build_line() {
  echo -n "Build: $(grep -m1 CMAKE_BUILD_TYPE "$build/CMakeCache.txt" 2>/dev/null | cut -d= -f2), commit $(git -C "$repo" rev-parse --short HEAD)"
}

trace_lines() {
  echo "Trace: synthetic (tests/analyzer/export/export_fixture_trace.h), $((iterations * 4)) GPU ops"
  echo "(kernels, H2D, D2H, memsets on 3 streams), $((iterations * 5 + 1)) API calls, $((iterations + 1)) NVTX"
}
