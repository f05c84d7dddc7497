#!/usr/bin/env bash
# Export benchmark: times `streamscope export` on a synthetic
# 1M-op trace (wall time and peak RSS from /usr/bin/time -v) and writes
# bench/results/export.md with the machine, date and commands.
#
#   bench/export/run_export_bench.sh [BUILD_DIR] [ITERATIONS]
#
# BUILD_DIR (default build) must hold bin/streamscope and
# bin/make_export_trace (target make_export_trace, tests/analyzer/export). The trace
# has 4 GPU ops per iteration (default 250000 -> 1,000,000 ops), 5 API calls
# per iteration and an NVTX range per iteration (tests/analyzer/export/export_fixture_trace.h).
. "$(dirname "$0")/export_bench_common.sh" "$@"
out="$repo/bench/results/export.md"

# run NAME CMD...: wall seconds and peak RSS of CMD.
rows=()
run() {
  local name=$1
  shift
  measure "$name" "$@"
  local size="-"
  for f in "$work/$name.json" "$work/$name.html"; do
    [ -f "$f" ] && size=$(awk -v b="$(stat -c %s "$f")" 'BEGIN {printf "%.1f MB", b/1e6}')
  done
  rows+=("| $name | \`${*/#$work\//}\` | $wall | $rss | $size |")
  echo "$name: ${wall} s, ${rss} MiB, output $size"
  sed 's/^/    /' "$work/$name.out"
}

generate_trace

run report "$ss" report "$work/trace.sqlite" -o "$work/report.txt" --force
run json_no_analysis "$ss" export "$work/trace.sqlite" --no-analysis --perfetto "$work/json_no_analysis.json"
run json "$ss" export "$work/trace.sqlite" --perfetto "$work/json.json"
run html "$ss" export "$work/trace.sqlite" --html "$work/html.html"
run html_unlimited_window "$ss" export "$work/trace.sqlite" --html "$work/html_unlimited_window.html" --nvtx iteration --nvtx-instance 1000
python3 - "$work/json.json" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
print("json parses: %d events, otherData.ops=%d" % (len(doc["traceEvents"]), doc["otherData"]["ops"]))
PY

{
  echo "# Export benchmark"
  echo
  echo "\`bench/export/run_export_bench.sh $build $iterations\` — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  machine_line
  echo "$(build_line)."
  echo
  trace_lines
  echo "ranges; ${trace_mb} MB; generated in ${gen_s} s. Wall time and peak RSS from \`/usr/bin/time -v\`,"
  echo "one run each, in this order, on the same machine."
  echo
  echo "| run | command | wall s | peak RSS MiB | output |"
  echo "|---|---|---|---|---|"
  for r in "${rows[@]}"; do echo "$r"; done
  echo
  echo "- \`report\` is the analyzer alone (load + all analyses + text), for comparison."
  echo "- \`json\` = load + overlap, gap causes (every gap) and hidden-sync analyses + streamed JSON"
  echo "  (every op, API call, NVTX range, flow, analysis slice)."
  echo "- \`html\` = the same analyses + HTML with the default --max-ops 200000 (the 1M ops are"
  echo "  downsampled into aggregate blocks; the report says so)."
  echo "- \`html_unlimited_window\` = one NVTX iteration: the small-window case."
  echo
  echo "Export output lines:"
  echo
  for n in json html; do echo '```'; cat "$work/$n.out"; echo '```'; done
} > "$out"
echo "wrote $out"
