#!/usr/bin/env bash
# `export --perfetto-proto` against `--perfetto` (JSON) on one synthetic
# 1M-op trace, side by side in one run: wall time and peak RSS from
# /usr/bin/time -v, the writer's own time (the "wrote ... in X s" line) and
# the file size. Writes bench/results/perfetto_proto.md.
#
#   bench/export/run_perfetto_proto_bench.sh [BUILD_DIR] [ITERATIONS]
#
# BUILD_DIR (default build) must hold bin/streamscope (built with protobuf)
# and bin/make_export_trace. 4 GPU ops per iteration (default 250000 ->
# 1,000,000 ops), 5 API calls and an NVTX range per iteration
# (tests/analyzer/export/export_fixture_trace.h).
. "$(dirname "$0")/export_bench_common.sh" "$@"
out=${RESULT_MD:-$repo/bench/results/perfetto_proto.md}  # RESULT_MD: write the result elsewhere

rows=()
# run NAME OUTPUT CMD...: wall s, peak RSS, writer s and size of OUTPUT.
run() {
  local name=$1 output=$2
  shift 2
  sync
  measure "$name" "$@"
  local writer size
  # export prints its "wrote ..." and "load ..." lines on stderr (with /usr/bin/time's report).
  grep -h '^wrote \|^load \|^note: ' "$work/$name.out" "$work/$name.time" >"$work/$name.lines" || true
  writer=$(awk '/^wrote / {print $(NF-1)}' "$work/$name.lines")
  size=$(awk -v b="$(stat -c %s "$output")" 'BEGIN {printf "%.1f", b/1e6}')
  sizes[$name]=$size
  rows+=("| $name | \`${*//$work\//}\` | $wall | $cpu | $writer | $rss | $size |")
  echo "$name: ${wall} s (writer ${writer} s), ${rss} MiB, ${size} MB"
  sed 's/^/    /' "$work/$name.lines"
  rm -f "$output"  # keep the disk free for the next run
}
declare -A sizes

echo "generating a trace with $((iterations * 4)) GPU ops..."
"$gen" "$work/trace.sqlite" "$iterations" --no-jitter
trace_mb=$(awk -v b="$(stat -c %s "$work/trace.sqlite")" 'BEGIN {printf "%.0f", b/1e6}')

load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
# Warm the page cache so the first run is not charged for it.
cat "$work/trace.sqlite" > /dev/null

# Load only (the window cut before the first op): what every run below pays
# before writing.
run load_only "$work/z.pftrace" "$ss" export "$work/trace.sqlite" --no-analysis --max-ops 0 --perfetto-proto "$work/z.pftrace"
run json_no_analysis "$work/a.json" "$ss" export "$work/trace.sqlite" --no-analysis --perfetto "$work/a.json"
run proto_no_analysis "$work/a.pftrace" "$ss" export "$work/trace.sqlite" --no-analysis --perfetto-proto "$work/a.pftrace"
run json "$work/b.json" "$ss" export "$work/trace.sqlite" --perfetto "$work/b.json"
run proto "$work/b.pftrace" "$ss" export "$work/trace.sqlite" --perfetto-proto "$work/b.pftrace"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a/b}'; }
{
  echo "# Perfetto protobuf export vs JSON"
  echo
  echo "\`bench/export/run_perfetto_proto_bench.sh $build $iterations\` — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "Machine: $(lscpu | awk -F': +' '/Model name/ {print $2; exit}'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(uname -sr)."
  echo "Build: $(grep -m1 CMAKE_BUILD_TYPE "$build/CMakeCache.txt" 2>/dev/null | cut -d= -f2), commit $(git -C "$repo" rev-parse --short HEAD); protobuf $(protoc --version 2>/dev/null | awk '{print $2}')."
  echo
  echo "Trace: synthetic (tests/analyzer/export/export_fixture_trace.h), $((iterations * 4)) GPU ops"
  echo "(kernels, H2D, D2H, memsets on 3 streams), $((iterations * 5 + 1)) API calls, $((iterations + 1)) NVTX"
  echo "ranges; ${trace_mb} MB. One run each, in this order, same machine; wall and peak RSS"
  echo "from \`/usr/bin/time -v\` (whole command: load, analyses, writing); writer s = the"
  echo "command's own \"wrote ... in X s\" (writing the file only); load average at the start:"
  echo "$load_at_start (2 cores shared with other builds: wall times are inflated, CPU s is the steadier figure)."
  echo
  echo "| run | command | wall s | CPU s (user+sys) | writer s | peak RSS MiB | file MB |"
  echo "|---|---|---|---|---|---|---|"
  for r in "${rows[@]}"; do echo "$r"; done
  echo
  echo "load_only = load + AddKernelShapes, nothing written (--max-ops 0): subtract it from a run's"
  echo "CPU s for the cost of writing."
  echo
  echo "Size: JSON / protobuf = $(ratio "${sizes[json]}" "${sizes[proto]}")x with analyses,"
  echo "$(ratio "${sizes[json_no_analysis]}" "${sizes[proto_no_analysis]}")x without."
  echo
  echo "Export output lines:"
  echo
  for n in json proto; do echo '```'; cat "$work/$n.lines"; echo '```'; done
} > "$out"
echo "wrote $out"
