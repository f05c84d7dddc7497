#!/usr/bin/env bash
# Records the pairs that check compare's window choice on real programs
# (analyzer/COMPARE.md "Windows"): ResNet-18 training (tools/gpu/public_models.py)
# with a CPU-bound loader as the control, and as variants the pinned,
# non-blocking input with its steps under the same NVTX range, renamed
# ('train_step', 20 steps instead of 12) and without any range. Then
# compares them. Run from the repository root with the staged binaries in
# out/gpu (collector_stage.sh); about 3 minutes.
#   OUT=... tools/gpu/compare_windows_record.sh
# What it must show (compare_*.txt, first lines; compare's exit code 0):
#   same.txt     Window: each run's steady state: NVTX range 'step'; per instance, 12 vs 12
#   renamed.txt  steady_state_matched: Note names 'step' (12) and 'train_step' (20); work
#                compared per instance; time per instance ~100 ms -> ~14 ms; VERIFIED
#   norange.txt  steady_state_matched with a kernel sequence on the variant side (or
#                gpu_span_work_differs if its repeat is not one step; the note says which);
#                never a steady window against a whole run
set -u
: "${OUT:?set OUT to the output folder}"
ROOT=$PWD
SS=$ROOT/out/gpu/bin/streamscope
export STREAMSCOPE_COLLECTOR=$ROOT/out/gpu/lib/libstreamscope_collector.so
T0=$SECONDS
stamp() { echo "=== [$((SECONDS - T0)) s] $*"; }
record() {  # record NAME ARGS...
  local name=$1; shift
  stamp "record $name"
  timeout 150 "$SS" run -o "$OUT/$name.sqlite" --force -- python3 tools/gpu/public_models.py "$@" \
    > "$OUT/$name.log" 2>&1
  echo "$name rc=$?"; grep public_models: "$OUT/$name.log"
}
record loader resnet18_loader --steps 12
record pinned resnet18 --steps 12
record pinned_renamed resnet18 --steps 20 --range train_step
record pinned_norange resnet18 --steps 12 --range ''
for pair in "same pinned" "renamed pinned_renamed" "norange pinned_norange"; do
  set -- $pair
  stamp "compare $1"
  "$SS" compare "$OUT/loader.sqlite" -- "$OUT/$2.sqlite" --goal speedup > "$OUT/compare_$1.txt" 2>&1
  echo "compare $1 rc=$?"; sed -n '1,4p;/^Verdict/,+1p' "$OUT/compare_$1.txt" | cut -c1-400
  "$SS" compare "$OUT/loader.sqlite" -- "$OUT/$2.sqlite" --goal speedup --format json > "$OUT/compare_$1.json" 2>&1
done
ls -la "$OUT"
stamp "done"
