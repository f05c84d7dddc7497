#!/usr/bin/env bash
# Records a real two-rank torchrun with NCCL (tools/gpu/ddp_allreduce.py)
# for the many-rank path. Needs a machine with 2 GPUs, PyTorch
# with NCCL, and the staged binaries in out/gpu/{bin,lib}
# (tools/gpu/collector_stage.sh). Writes $OUT/ddp/trace-<pid>.sqlite (one
# per process; the torchrun launcher's own, if any, has no GPU work) and
# $OUT/ddp/report.txt (`streamscope report --nvtx step` over the rank
# traces). Must end with "dask_torchrun_record: PASS": two traces carry
# env:RANK 0 and 1, and the report matched NCCL collectives across them.
# The Dask analysis then runs on any machine with the package and dask
# (docs/ranks.md): python -c "import streamscope, glob;
#   print(streamscope.ranks.analyze(sorted(glob.glob('OUT/ddp/trace-*.sqlite')), nvtx='step').stragglers)"
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/out/gpu/bin/streamscope
export STREAMSCOPE_COLLECTOR=$ROOT/out/gpu/lib/libstreamscope_collector.so
mkdir -p "$OUT/ddp"
timeout 300 "$BIN" run -o "$OUT/ddp/trace-%p.sqlite" -- \
  torchrun --standalone --nproc_per_node 2 "$ROOT/tools/gpu/ddp_allreduce.py" 2>&1 | tee "$OUT/ddp/run.log"
ranks=()
for t in "$OUT"/ddp/trace-*.sqlite; do
  r=$(sqlite3 "$t" "SELECT value FROM metadata WHERE key='env:RANK'" 2>/dev/null)
  [ -n "$r" ] && ranks+=("$t")
done
echo "rank traces: ${ranks[*]}"
if [ "${#ranks[@]}" -ne 2 ]; then echo "dask_torchrun_record: FAIL (${#ranks[@]} rank traces)"; exit 1; fi
"$BIN" report --nvtx step "${ranks[@]}" > "$OUT/ddp/report.txt" 2>&1
"$BIN" report --nvtx step --format json "${ranks[@]}" > "$OUT/ddp/report.json" 2>/dev/null
grep -A12 "Across ranks" "$OUT/ddp/report.txt"
matched=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['combined']['ranks']['matched_collectives'])" "$OUT/ddp/report.json")
if [ "${matched:-0}" -gt 0 ]; then echo "dask_torchrun_record: PASS ($matched collectives matched)"; exit 0; fi
echo "dask_torchrun_record: FAIL (no collective matched)"; exit 1
