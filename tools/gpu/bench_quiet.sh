#!/usr/bin/env bash
# The torch.profiler path's speed figures on a quiet machine (the 16-core GPU host; no GPU
# is used): streamscope against Holistic Trace Analysis (HTA) on the same
# torch.profiler trace at 100k and 1M GPU ops (bench/hta/run_hta_bench.sh),
# and `export --perfetto-proto` against `--perfetto` at 1M ops
# (bench/export/run_perfetto_proto_bench.sh plus REPEAT more protobuf runs
# with STREAMSCOPE_PROFILE=1: the writer's CPU against its wall time). Everything lands in "$OUT":
#   bench_quiet.md        machine, load, both benches' tables (the result)
#   hta_table.md          run_hta_bench.sh's table alone (also in bench_quiet.md)
#   hta_progress.log      run_hta_bench.sh's progress and errors
#   perfetto_runs.log     the export runs' output lines and /usr/bin/time -v
#
#   OUT=/tmp/bq tools/gpu/bench_quiet.sh [BIN_DIR]
#
# BIN_DIR (default out/gpu/bin, staged by tools/gpu/collector_stage.sh) holds
# the streamscope CLI and make_export_trace. HTA comes from the wheels in
# .whl/ (HolisticTraceAnalysis, plotly, pydot; pandas, numpy, networkx,
# PyYAML and psutil are on the GPU host already) unless HTA_PYTHON names a
# Python that imports it. Sizes and repetitions can be made smaller for a
# trial run: HTA_SIZES (default "100000 1000000"), PROTO_ITERATIONS (default
# 250000 = 1M ops; 0 skips the export bench), REPEAT (default 3: streamscope's runs at every size and
# HTA's at 100k; HTA runs once at 1M).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BIN=$(cd "${1:-out/gpu/bin}" && pwd)
OUT=${OUT:?set OUT to the folder for the results}
mkdir -p "$OUT"
WORK=${WORK:-$(mktemp -d /tmp/bench-quiet.XXXXXX)}
HTA_SIZES=${HTA_SIZES:-100000 1000000}
PROTO_ITERATIONS=${PROTO_ITERATIONS:-250000}
REPEAT=${REPEAT:-3}
md=$OUT/bench_quiet.md
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0)) s] $*" >&2; }

# GNU time may be missing there: the same figures from wait4().
export TIME_BIN=${TIME_BIN:-/usr/bin/time}
[ -x "$TIME_BIN" ] || TIME_BIN=$ROOT/bench/time_shim.py

for b in streamscope make_export_trace; do
  [ -x "$BIN/$b" ] || { echo "missing $BIN/$b: stage with tools/gpu/collector_stage.sh BUILD_DIR" >&2; exit 2; }
done
if [ -z "${HTA_PYTHON:-}" ]; then
  HTA_PYTHON=python3
  if ! python3 -c "import hta" 2>/dev/null; then
    ls .whl/*.whl >/dev/null 2>&1 || { echo "no .whl/ with HTA's wheels (carry .whl)" >&2; exit 2; }
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .whl/*.whl ||
      exit 2
    export PYTHONPATH=$WORK/site${PYTHONPATH:+:$PYTHONPATH}
  fi
fi
"$HTA_PYTHON" -c "from hta.trace_analysis import TraceAnalysis" || { echo "HTA does not import" >&2; exit 2; }

{
  echo "# Quiet-machine benchmark (tools/gpu/bench_quiet.sh)"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -r)"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- streamscope: $BIN/streamscope ($("$BIN/streamscope" --version 2>/dev/null | head -1))"
  echo "- Python: $("$HTA_PYTHON" -c 'import sys, pandas, numpy; print(sys.version.split()[0], "pandas", pandas.__version__, "numpy", numpy.__version__)')"
  echo "- command: OUT=\$OUT tools/gpu/bench_quiet.sh $*  (HTA_SIZES=\"$HTA_SIZES\" PROTO_ITERATIONS=$PROTO_ITERATIONS REPEAT=$REPEAT)"
  echo
} >"$md"

# 1. Perfetto protobuf / JSON export at 4 * PROTO_ITERATIONS ops (0: skipped).
if [ "$PROTO_ITERATIONS" -gt 0 ]; then
echo >>"$md"
echo "## Perfetto export (bench/export/run_perfetto_proto_bench.sh)" >>"$md"
echo >>"$md"
say "export bench: $((PROTO_ITERATIONS * 4)) ops"
if RESULT_MD=$WORK/perfetto_proto.md bench/export/run_perfetto_proto_bench.sh "$(dirname "$BIN")" "$PROTO_ITERATIONS" \
  >"$OUT/perfetto_runs.log" 2>&1; then
  sed '1,2d' "$WORK/perfetto_proto.md" >>"$md"
else
  echo "FAILED (exit $?): see perfetto_runs.log" >>"$md"
fi

# The writer alone, 3 more times (median): wall against CPU of the whole
# command, and the writer's own seconds.
say "protobuf writer: $REPEAT more runs"
gen_trace=$WORK/export.sqlite
"$BIN/make_export_trace" "$gen_trace" "$PROTO_ITERATIONS" --no-jitter >>"$OUT/perfetto_runs.log" 2>&1
cat "$gen_trace" >/dev/null
{
  echo
  echo "Protobuf export with analyses, $REPEAT more runs (\`streamscope export trace.sqlite --perfetto-proto b.pftrace\`,"
  echo "STREAMSCOPE_PROFILE=1 for the phases' CPU time):"
  echo
  echo "| run | wall s | CPU s (user+sys) | writer s (wall) | CPU s after the analyses | peak RSS MiB | file MB |"
  echo "|---|---|---|---|---|---|---|"
} >>"$md"
for i in $(seq "$REPEAT"); do
  rm -f "$WORK/b.pftrace"
  STREAMSCOPE_PROFILE=1 "$TIME_BIN" -f "%e %U %S %M" -o "$WORK/t" "$BIN/streamscope" export "$gen_trace" \
    --perfetto-proto "$WORK/b.pftrace" >"$WORK/o" 2>"$WORK/e"
  read -r wall user sys rss <"$WORK/t"
  writer=$(cat "$WORK/o" "$WORK/e" | awk '/^wrote / {print $(NF-1)}')  # export reports on stderr
  # The writer's marks after the analyses were ready (the protobuf writer
  # writes its ops and host parts while they run): parts, join, commit.
  writer_cpu=$(awk '/profile: (timeline parts|timeline joined|write timeline) / {s += $(NF-5)} END {printf "%.3f", s}' "$WORK/e")
  size=$(awk -v b="$(stat -c %s "$WORK/b.pftrace" 2>/dev/null || echo 0)" 'BEGIN {printf "%.1f", b/1e6}')
  echo "| $i | $wall | $(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}') | $writer | $writer_cpu | $((rss / 1024)) | $size |" >>"$md"
  { echo "--- proto run $i"; cat "$WORK/o" "$WORK/e"; } >>"$OUT/perfetto_runs.log"
done
rm -f "$gen_trace" "$WORK/b.pftrace"
fi

# 2. HTA against streamscope: HTA REPEAT times at 100k and once at 1M,
# streamscope REPEAT times at both (best and median in the output). Second:
# the longest part; the export tables are in $OUT already if time runs out.
say "HTA bench: sizes $HTA_SIZES"
{
  echo
  echo "## streamscope against HTA (bench/hta/run_hta_bench.sh)"
  echo
} >>"$md"
# shellcheck disable=SC2086
if BENCH_DIR=$WORK/hta STREAMSCOPE=$BIN/streamscope HTA_PYTHON=$HTA_PYTHON REPEAT=$REPEAT LARGE_REPEAT=$REPEAT \
  HTA_LARGE_REPEAT=1 bench/hta/run_hta_bench.sh $HTA_SIZES >"$OUT/hta_table.md" 2>"$OUT/hta_progress.log"; then
  cat "$OUT/hta_table.md" >>"$md"
else
  { echo "FAILED (exit $?): see hta_progress.log"; cat "$OUT/hta_table.md"; } >>"$md"
fi
rm -rf "$WORK/hta"  # 1.2 GB of traces
say "HTA bench done"

rm -rf "$WORK"
{
  echo
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); total $(($(date +%s) - t0)) s"
} >>"$md"
say "done: $md"
cat "$md"
