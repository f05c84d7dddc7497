#!/usr/bin/env bash
# streamscope against Holistic Trace Analysis (HTA) on the same torch.profiler
# trace, side by side in one run: for each size, a synthetic Kineto trace
# (bench/hta/gen_kineto_trace.py) is
#   (a) loaded in HTA with the breakdowns that match `streamscope report`
#       (bench/hta/hta_breakdowns.py: temporal, idle time, kernel, comm/comp
#       overlap, CUDA kernel launch stats, user annotations);
#   (b) reported by `streamscope report TRACE.json --format json --window
#       whole` with the sections that match HTA's breakdowns (SECTIONS below:
#       only those analyses are computed), the like-for-like comparison;
#   (c) the same on the trace converted to a streamscope SQLite trace
#       (`streamscope convert`, done once, not timed in the ratio; its time
#       is shown);
#   (d) the full `streamscope report TRACE.json --format json`: every
#       analysis (diagnosis and its what-if ranking on the dependency graph,
#       critical path, steady-state window, hazards, timing audit), which
#       HTA does not compute, for reference.
# Every run is its own process under /usr/bin/time (wall time, peak RSS); the
# commands alternate within each repetition, best of REPEAT (wall, CPU
# time = user + sys, and peak RSS each taken separately). Prints a markdown section for bench/results/hta.md.
#
#   STREAMSCOPE=build/bin/streamscope HTA_PYTHON=hta-venv/bin/python \
#     bench/hta/run_hta_bench.sh [NUM_OPS...]          (default: 100000 1000000)
#
# REPEAT (default 3) repetitions per size; sizes of at least LARGE_OPS
# (default 1000000) get LARGE_REPEAT (default 1) instead, because one HTA run
# at 1M ops takes minutes; HTA_LARGE_REPEAT (default LARGE_REPEAT) runs HTA
# in only the first repetitions there (streamscope in all of them). The
# details give the median CPU and wall time of each command next to the best.
set -euo pipefail
cd "$(dirname "$0")/../.."
STREAMSCOPE=${STREAMSCOPE:-build/bin/streamscope}
HTA_PYTHON=${HTA_PYTHON:-python3}
BENCH_DIR=${BENCH_DIR:-/tmp/streamscope-hta-bench}
TIME_BIN=${TIME_BIN:-/usr/bin/time}  # GNU time, or bench/time_shim.py where it is missing
REPEAT=${REPEAT:-3}
LARGE_OPS=${LARGE_OPS:-1000000}
LARGE_REPEAT=${LARGE_REPEAT:-1}
HTA_LARGE_REPEAT=${HTA_LARGE_REPEAT:-$LARGE_REPEAT}
# HTA's six breakdowns (hta_breakdowns.py) in streamscope's sections:
# temporal and kernel breakdown <-> overlap (time by category, busy/idle) and
# combined; idle time breakdown <-> idle-gaps and gap-causes; comm/comp
# overlap <-> communication; kernel launch stats <-> launch-stats; user
# annotation breakdown <-> launchers (GPU time per operator and annotation).
SECTIONS=(--window whole --section overlap --section combined --section idle-gaps --section gap-causes
  --section communication --section launch-stats --section launchers)
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(100000 1000000)
[ -x "$STREAMSCOPE" ] || { echo "missing $STREAMSCOPE: build the CLI first (cmake --build build --target streamscope)" >&2; exit 1; }
"$HTA_PYTHON" -c "from hta.trace_analysis import TraceAnalysis" 2>/dev/null ||
  { echo "HTA not importable by $HTA_PYTHON: pip install -r bench/hta/requirements.txt" >&2; exit 1; }
mkdir -p "$BENCH_DIR"
hta_version=$("$HTA_PYTHON" -c "import importlib.metadata as m; print(m.version('HolisticTraceAnalysis'))" 2>/dev/null || echo unknown)
py_version=$("$HTA_PYTHON" -c "import sys, pandas; print(sys.version.split()[0], 'pandas', pandas.__version__)")

# measure OUT_PREFIX CMD...: runs CMD once under /usr/bin/time, appends
# "wall_s peak_kib user_s sys_s" to OUT_PREFIX.times and its stdout to OUT_PREFIX.out.
measure() {
  local prefix=$1; shift
  local tf; tf=$(mktemp)
  if ! "$TIME_BIN" -o "$tf" -f "%e %M %U %S" "$@" >"$prefix.out" 2>"$prefix.err"; then
    echo "FAILED: $* (see $prefix.err)" >&2; tail -5 "$prefix.err" >&2; rm -f "$tf"; exit 1
  fi
  tail -1 "$tf" >>"$prefix.times"; rm -f "$tf"
}
best_wall() { awk 'NR == 1 || $1 < b {b = $1} END {printf "%.2f", b}' "$1"; }
best_cpu() { awk 'NR == 1 || $3 + $4 < b {b = $3 + $4} END {printf "%.2f", b}' "$1"; }
best_rss_mib() { awk 'NR == 1 || $2 < b {b = $2} END {printf "%.0f", b / 1024}' "$1"; }
median_of() {  # median_of FILE FIELD-EXPRESSION: median over the runs (lower middle for an even count)
  awk "{print $2}" "$1" | sort -g | awk '{v[NR] = $1} END {printf "%.2f", v[int((NR + 1) / 2)]}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0fx", a / b}'; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "HTA $hta_version (Python $py_version, default JSON parser backend); streamscope $STREAMSCOPE"
echo "command: STREAMSCOPE=$STREAMSCOPE HTA_PYTHON=$HTA_PYTHON REPEAT=$REPEAT LARGE_REPEAT=$LARGE_REPEAT HTA_LARGE_REPEAT=$HTA_LARGE_REPEAT bench/hta/run_hta_bench.sh ${SIZES[*]}"
echo
rows=()
for n in "${SIZES[@]}"; do
  dir=$BENCH_DIR/kineto-$n
  trace=$dir/rank-0.pt.trace.json
  sqlite=$BENCH_DIR/kineto-$n.sqlite
  if [ ! -f "$trace" ]; then
    mkdir -p "$dir"
    python3 bench/hta/gen_kineto_trace.py "$trace" "$n" >&2
  fi
  rm -f "$BENCH_DIR/convert-$n".* "$sqlite"
  measure "$BENCH_DIR/convert-$n" "$STREAMSCOPE" convert "$trace" -o "$sqlite" --force
  reps=$REPEAT hta_reps=$REPEAT
  if [ "$n" -ge "$LARGE_OPS" ]; then reps=$LARGE_REPEAT hta_reps=$HTA_LARGE_REPEAT; fi
  rm -f "$BENCH_DIR"/{hta,json,sqlite,full}-"$n".times
  for i in $(seq "$reps"); do
    echo "size $n, repetition $i of $reps: HTA, streamscope JSON, streamscope SQLite, full report" >&2
    [ "$i" -le "$hta_reps" ] && measure "$BENCH_DIR/hta-$n" "$HTA_PYTHON" bench/hta/hta_breakdowns.py "$dir"
    measure "$BENCH_DIR/json-$n" "$STREAMSCOPE" report "$trace" --format json "${SECTIONS[@]}" \
      -o "$BENCH_DIR/report-json-$n.json" --force
    measure "$BENCH_DIR/sqlite-$n" "$STREAMSCOPE" report "$sqlite" --format json "${SECTIONS[@]}" \
      -o "$BENCH_DIR/report-sqlite-$n.json" --force
    measure "$BENCH_DIR/full-$n" "$STREAMSCOPE" report "$trace" --format json -o "$BENCH_DIR/report-full-$n.json" --force
  done
  hw=$(best_wall "$BENCH_DIR/hta-$n.times"); hm=$(best_rss_mib "$BENCH_DIR/hta-$n.times"); hc=$(best_cpu "$BENCH_DIR/hta-$n.times")
  jw=$(best_wall "$BENCH_DIR/json-$n.times"); jm=$(best_rss_mib "$BENCH_DIR/json-$n.times"); jc=$(best_cpu "$BENCH_DIR/json-$n.times")
  sw=$(best_wall "$BENCH_DIR/sqlite-$n.times"); sm=$(best_rss_mib "$BENCH_DIR/sqlite-$n.times"); sc=$(best_cpu "$BENCH_DIR/sqlite-$n.times")
  fw=$(best_wall "$BENCH_DIR/full-$n.times"); fm=$(best_rss_mib "$BENCH_DIR/full-$n.times"); fc=$(best_cpu "$BENCH_DIR/full-$n.times")
  cw=$(best_wall "$BENCH_DIR/convert-$n.times"); cm=$(best_rss_mib "$BENCH_DIR/convert-$n.times")
  # The same trace seen by both tools: GPU ops, GPU idle share, comm/compute overlap.
  hfig=$(grep '^figures' "$BENCH_DIR/hta-$n.out" | cut -d' ' -f2-)
  sfig=$(python3 - "$BENCH_DIR/report-json-$n.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["combined"]["total"]
ops = r["traces"][0]["summary"]["counts"]["gpu_ops"]
comm = r["traces"][0]["windows"][0]["communication"]["devices"]
shared = 100.0 * comm[0]["hidden_share"] if comm and comm[0].get("hidden_share") is not None else float("nan")
print(f"gpu_ops {ops} idle_pct {100.0 * t['idle_ns'] / t['window_ns']:.2f} "
      f"compute_pct {100.0 * t['compute_ns'] / t['window_ns']:.2f} comm_comp_overlap_pct {shared:.2f}")
EOF
)
  mib=$(( $(stat -c %s "$trace") / 1048576 ))
  stages=$(grep -v '^figures' "$BENCH_DIR/hta-$n.out" | tr '\n' ';' | sed 's/;$//; s/;/; /g')
  runs=$reps; [ "$hta_reps" != "$reps" ] && runs="$hta_reps HTA, $reps streamscope"
  rows+=("| $n | $mib MiB | $runs | $hw s, $hc s, $hm MiB | $jw s, $jc s, $jm MiB | $(ratio "$hw" "$jw"), $(ratio "$hc" "$jc"), $(ratio "$hm" "$jm") | $sw s, $sc s, $sm MiB | $(ratio "$hw" "$sw"), $(ratio "$hc" "$sc"), $(ratio "$hm" "$sm") | $fw s, $fc s, $fm MiB | $(ratio "$hw" "$fw"), $(ratio "$hc" "$fc"), $(ratio "$hm" "$fm") | $cw s, $cm MiB |")
  medians="HTA $(median_of "$BENCH_DIR/hta-$n.times" '$3 + $4') s CPU, $(median_of "$BENCH_DIR/hta-$n.times" '$1') s wall; JSON $(median_of "$BENCH_DIR/json-$n.times" '$3 + $4') s CPU, $(median_of "$BENCH_DIR/json-$n.times" '$1') s wall; SQLite $(median_of "$BENCH_DIR/sqlite-$n.times" '$3 + $4') s CPU, $(median_of "$BENCH_DIR/sqlite-$n.times" '$1') s wall; full report $(median_of "$BENCH_DIR/full-$n.times" '$3 + $4') s CPU, $(median_of "$BENCH_DIR/full-$n.times" '$1') s wall"
  details+=("- $n ops: HTA stages (last run): $stages"$'\n'"  - medians: $medians"$'\n'"  - HTA figures: $hfig"$'\n'"  - streamscope figures: $sfig"$'\n'"  - all runs (wall s, peak KiB, user s, sys s): HTA $(tr '\n' ';' <"$BENCH_DIR/hta-$n.times") JSON $(tr '\n' ';' <"$BENCH_DIR/json-$n.times") SQLite $(tr '\n' ';' <"$BENCH_DIR/sqlite-$n.times") full $(tr '\n' ';' <"$BENCH_DIR/full-$n.times")")
done
echo "| GPU ops | trace JSON | runs | HTA: wall, CPU, peak RSS | streamscope, same breakdowns, JSON: wall, CPU, peak RSS | HTA / streamscope JSON: wall, CPU, memory | same breakdowns, SQLite | HTA / streamscope SQLite | full report (every analysis), JSON | HTA / full report | convert JSON to SQLite (once): wall, peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${details[@]}"
