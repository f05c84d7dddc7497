#!/usr/bin/env bash
# Round trip per iteration, measured: records two control/remedy pairs and
# checks that `compare` verifies the remedy and that the control's round-trip
# estimate is within 25% of the saving compare measured.
#   1. convergence_loop (graph launch, 8-byte D2H, sync, host test each
#      iteration) vs convergence_every16 (tested every 16 iterations);
#   2. workloads/torch/item_per_step.py --every 1 (loss.item() each step) vs
#      --every 50.
# Run from the repository root on a GPU machine with the CUDA build in
# build/ (bin/streamscope, bin/streamscope_workloads,
# lib/libstreamscope_collector.so); builds nothing. Writes $OUT/summary.txt,
# $OUT/round_trip.log and $OUT/traces.tar.gz (traces and every report).
#   OUT=... tools/gpu/round_trip_check.sh [BUILD_DIR]
# A correct result: summary.txt says, for both pairs, "verdict VERIFIED" and
# "estimate within 25%: yes", round_trip significant, and the control's
# primary cause the one workloads/README.md names: round_trip for the
# convergence loop, cpu_starvation for the PyTorch loop (host-bound even
# without the read-backs, so removing its host work saves the most).
set -u
: "${OUT:?set OUT to the output folder}"
BUILD=$(cd "${1:-build}" && pwd) || { echo "no build folder ${1:-build}"; exit 2; }
BIN=$BUILD/bin
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STREAMSCOPE_COLLECTOR=$BUILD/lib/libstreamscope_collector.so
T=$(mktemp -d)
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
rc=0

record() {  # record NAME CMD...: $T/NAME.sqlite
  local name=$1; shift
  timeout 300 "$BIN/streamscope" run --no-summary --force -o "$T/$name.sqlite" -- "$@" > "$T/$name.run.log" 2>&1 ||
    { say "FAIL $name: run exited $? ($(tail -c 300 "$T/$name.run.log" | tr '\n' ' '))"; rc=1; }
}

# check NAME CONTROL VARIANT PRIMARY: compare (speedup goal, NVTX
# 'measured'), report and diagnose of the control, the estimate against the
# saving, and the control's primary cause.
check() {
  local name=$1 control=$T/$2.sqlite variant=$T/$3.sqlite want=$4
  "$BIN/streamscope" report --nvtx measured "$control" > "$T/$2.report.txt" 2>&1
  "$BIN/streamscope" report --nvtx measured "$variant" > "$T/$3.report.txt" 2>&1
  "$BIN/streamscope" diagnose --nvtx measured --format json "$control" > "$T/$2.diagnose.json" 2>&1
  "$BIN/streamscope" compare --goal speedup --nvtx measured "$control" -- "$variant" \
    > "$T/$name.compare.txt" 2>&1
  "$BIN/streamscope" compare --goal speedup --nvtx measured --format json "$control" -- "$variant" \
    > "$T/$name.compare.json" 2>&1
  python3 - "$name" "$T/$2.diagnose.json" "$T/$name.compare.json" "$want" <<'PY' | tee -a "$SUMMARY" || rc=1
import json, sys
name, diag_path, cmp_path, want = sys.argv[1:5]
try:
    diag = json.load(open(diag_path))
    cmp = json.load(open(cmp_path))
except Exception as e:  # a command failed: its output is in the tarball
    print(f"{name}: FAIL unreadable output ({e})"); sys.exit(1)
def find(j, key):
    if isinstance(j, dict):
        if key in j: return j[key]
        for v in j.values():
            r = find(v, key)
            if r is not None: return r
    if isinstance(j, list):
        for v in j:
            r = find(v, key)
            if r is not None: return r
    return None
findings = find(diag, "findings") or []
primary = next((f["cause"] for f in findings if f.get("primary")), None)
rt = next((f for f in findings if f["cause"] == "round_trip"), None)
estimate = rt["estimated_saving_ns"] if rt and rt.get("estimated_saving_ns") is not None else None
verdict = find(cmp, "verdict")
saved = verdict.get("saved_ns") if isinstance(verdict, dict) else find(cmp, "saved_ns")
verdict = verdict.get("verdict") if isinstance(verdict, dict) else verdict
ok_verdict = str(verdict).lower() == "verified"
within = estimate is not None and saved and saved > 0 and abs(estimate - saved) <= 0.25 * saved
ranking = ", ".join(f"{f['cause']} {f.get('estimated_saving_ns')}" for f in findings[:4])
significant = bool(rt and rt.get("significant"))
print(f"{name}: primary {primary} (expected {want}); ranking {ranking}; round_trip significant: "
      f"{'yes' if significant else 'no'}, cost {rt['measured_cost_ns'] if rt else None} ns, estimate "
      f"{estimate} ns; compare verdict {str(verdict).upper()}, measured saving {saved} ns; estimate within 25%: "
      f"{'yes' if within else 'no'}")
sys.exit(0 if ok_verdict and within and significant and primary == want else 1)
PY
}

{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1 | tail -1
  record convergence_loop "$BIN/streamscope_workloads" --variant convergence_loop --iterations 2000
  record convergence_every16 "$BIN/streamscope_workloads" --variant convergence_every16 --iterations 2000
  check convergence convergence_loop convergence_every16 round_trip
  record item_every1 python3 "$ROOT/workloads/torch/item_per_step.py" --steps 300 --every 1
  record item_every50 python3 "$ROOT/workloads/torch/item_per_step.py" --steps 300 --every 50
  check torch_item item_every1 item_every50 cpu_starvation
  cat "$T"/*.compare.txt
  echo "rc=$rc"
} > "$OUT/round_trip.log" 2>&1
tar -C "$T" -czf "$OUT/traces.tar.gz" .
cat "$SUMMARY"
exit "$rc"
