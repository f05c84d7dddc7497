#!/usr/bin/env bash
# Cost of the default capture on launch-bound loops now that runtime calls
# which only query host-side state (cudaGetDevice, cudaGetLastError, ...;
# collector/runtime_query_cbids.cc) are left out, and proof that nothing the
# analyzer needs went with them. Uses only the prebuilt build folder.
#   OUT=/tmp/rq tools/gpu/runtime_query_overhead.sh [BUILD_DIR=build] [REPS=9]
# Writes $OUT/summary.txt:
#  1. PyTorch loop of 20k x.add_(1) (tools/gpu/launch_bound_torch.py),
#     interleaved REPS times: plain, default capture, --kinds +runtime-all
#     (the old default). Medians of the timed loop and ratios to plain.
#     Target: default/plain <= 1.35.
#  2. The default trace of that loop: runtime api_call rows by name (want no
#     cudaGetDevice / cudaGetLastError), kernels with a submitting api_call
#     (want 100%), collector_stat runtime_queries_kept (want 0), and
#     `streamscope report` runs.
#  3. The 200k-launch C++ bench (bench/collector/run_launch_bound.sh):
#     untraced, no-op CUPTI consumer (whole RUNTIME kind), streamscope default,
#     REPS/2 interleaved runs.
set -u
: "${OUT:?set OUT to the output folder}"
BUILD=$(cd "${1:-build}" && pwd) || exit 2
REPS=${2:-9}
BIN=$BUILD/bin
export STREAMSCOPE_COLLECTOR=$BUILD/lib/libstreamscope_collector.so
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset STREAMSCOPE_KINDS CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
HERE=$(cd "$(dirname "$0")" && pwd)
LOOP=$HERE/launch_bound_torch.py
mkdir -p "$OUT/traces"
S=$OUT/summary.txt
: > "$S"
say() { echo "$*" | tee -a "$S"; }
secs() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' | tail -1; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR) print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "nan"}'; }

say "# runtime query records left out: launch-bound cost ($(date -u +%FT%TZ))"
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1); $(python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1)"
for cfg in plain default runtime_all; do : > "$OUT/$cfg.txt"; done
for rep in $(seq "$REPS"); do
  python3 "$LOOP" 20000 2>>"$OUT/errors.log" | secs >> "$OUT/plain.txt"
  "$BIN/streamscope" run --no-summary --force -o "$OUT/traces/default.sqlite" -- python3 "$LOOP" 20000 \
    2>>"$OUT/errors.log" | secs >> "$OUT/default.txt"
  "$BIN/streamscope" run --no-summary --force --kinds +runtime-all -o "$OUT/traces/runtime_all.sqlite" -- \
    python3 "$LOOP" 20000 2>>"$OUT/errors.log" | secs >> "$OUT/runtime_all.txt"
done
p=$(median < "$OUT/plain.txt"); d=$(median < "$OUT/default.txt"); r=$(median < "$OUT/runtime_all.txt")
say "torch 20k x.add_(1), $REPS interleaved runs, median timed loop: plain ${p}s, default ${d}s, +runtime-all ${r}s"
say "  default/plain = $(awk "BEGIN{printf \"%.3f\", $d/$p}") (target <= 1.35); +runtime-all/plain = $(awk "BEGIN{printf \"%.3f\", $r/$p}")"
say "  runs: plain [$(tr '\n' ' ' < "$OUT/plain.txt")] default [$(tr '\n' ' ' < "$OUT/default.txt")] runtime_all [$(tr '\n' ' ' < "$OUT/runtime_all.txt")]"

for t in default runtime_all; do
  db=$OUT/traces/$t.sqlite
  say "## trace $t"
  python3 - "$db" <<'PY' | tee -a "$S"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda sql: db.execute(sql).fetchall()
rows = q("SELECT s.value, count(*) FROM api_call a JOIN string s ON s.id = a.name_id WHERE a.domain = 1 GROUP BY 1 ORDER BY 2 DESC LIMIT 8")
print("  runtime rows by name:", ", ".join(f"{n} {c}" for n, c in rows))
k, ks = q("SELECT count(*), sum(EXISTS (SELECT 1 FROM api_call a WHERE a.correlation_id = k.correlation_id)) FROM kernel k")[0]
print(f"  kernels {k}, with a submitting api_call {ks} ({100.0 * (ks or 0) / max(k, 1):.1f}%)")
stats = dict(q("SELECT key, value FROM collector_stat"))
kinds = q("SELECT value FROM metadata WHERE key = 'record_kinds'")
print(f"  runtime_queries_kept={stats.get('runtime_queries_kept')} records_dropped_cupti={stats.get('records_dropped_cupti')} record_kinds={kinds[0][0] if kinds else '?'}")
PY
  "$BIN/streamscope" report "$db" > "$OUT/report_$t.txt" 2>&1; say "  report exit $? ($(wc -l < "$OUT/report_$t.txt") lines)"
done

say "## 200k launches + 50k copies (bench/collector/run_launch_bound.sh, $(( (REPS + 1) / 2 )) runs)"
CONFIGS="untraced noop_default streamscope_default" bash "$HERE/../../bench/collector/run_launch_bound.sh" "$BUILD" \
  $(( (REPS + 1) / 2 )) > "$OUT/launch_bound.txt" 2>&1
for cfg in untraced noop_default streamscope_default; do
  m=$(grep "^$cfg " "$OUT/launch_bound.txt" | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' | median)
  say "  $cfg median ${m}s"
done
say "  (noop_default enables the whole RUNTIME kind: streamscope default below it is expected)"
