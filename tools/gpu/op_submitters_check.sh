#!/usr/bin/env bash
# Submitters of every GPU op and start/stop from a running
# process, on the GPU machine. Run from the repository root
# with the CUDA build carried in build/ (bin/streamscope,
# bin/streamscope_workloads, bin/collector_launch_bound, bin/collector_*_ops,
# lib/libstreamscope_collector.so); traces and logs go to $OUT.
#   OUT=... tools/gpu/op_submitters_check.sh [BUILD_DIR=build]
# Steps (each reports its own failure and the session goes on; about 5 min):
#  1. every bundled workload (small), known_ops and memory_ops (a direct
#     cuLaunchKernel), a PyTorch matmul loop (cuBLAS) and a torch.compile'd
#     step (Triton), recorded with the DEFAULT kinds: per trace the share of
#     GPU ops with a submitter and which API kinds submitted them
#     (tools/gpu/submitter_check.py; want 100.0% and nested_driver=0);
#  3. streamscope_record_start/stop from a PyTorch process (record_section);
#  4. overhead A/B on the launch-bound benchmark, interleaved, 5 runs each:
#     default kinds without `submit` (before) and with it (after); target
#     after/before <= 1.05 (medians);
#  2. (last, skipped past 360 s) the matmul loop and launch_individual again
#     with --kinds +driver: which record a kernel matches when a runtime call
#     nests a driver call.
set -u
: "${OUT:?set OUT to the output folder}"
default=build
[ -d out/gpu/bin ] && default=out/gpu
BUILD=$(cd "${1:-$default}" && pwd) || { echo "no build folder ${1:-$default}"; exit 2; }
BIN=$BUILD/bin
LIB=$BUILD/lib/libstreamscope_collector.so
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STREAMSCOPE_COLLECTOR=$LIB
unset STREAMSCOPE_KINDS CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
T=$OUT/traces
mkdir -p "$T"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
START=$SECONDS
say() { echo "$*" | tee -a "$SUMMARY"; }
late() { [ $((SECONDS - START)) -gt "$1" ]; }  # more than N s used

{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -2
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1 | tail -1
  ls "$BIN/streamscope" "$BIN/streamscope_workloads" "$LIB" 2>&1
  nm -D --defined-only "$LIB" 2>&1 | awk '{print "export", $3}'
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

# record NAME KINDS TIMEOUT CMD...: traces CMD with `streamscope run` into
# $T/NAME.sqlite (KINDS "" = default) and prints the submitter line.
record() {
  local name=$1 kinds=$2 limit=$3; shift 3
  local kargs=()
  [ -n "$kinds" ] && kargs=(--kinds "$kinds")
  rm -f "$T/$name".sqlite*
  timeout "$limit" "$BIN/streamscope" run --no-summary --force "${kargs[@]}" -o "$T/$name.sqlite" -- "$@" \
    > "$T/$name.log" 2>&1
  local rc=$?
  if [ ! -f "$T/$name.sqlite" ]; then
    say "FAIL $name: no trace (rc=$rc; $(tail -c 300 "$T/$name.log" | tr '\n' ' '))"
    return
  fi
  local line
  line=$(python3 "$ROOT/tools/gpu/submitter_check.py" "$T/$name.sqlite" "$name${kinds:+ ($kinds)}")
  local crc=$?
  local verdict=PASS
  [ $crc -ne 0 ] && verdict=FAIL
  [ $rc -ne 0 ] && verdict="$verdict(rc=$rc)"
  say "$verdict $line"
}

say "== 1. default kinds: GPU ops with a submitter"
variants=$("$BIN/streamscope" workloads list 2>/dev/null | awk '/^  [a-z_0-9]+ /{print $1}')
[ -z "$variants" ] && say "FAIL cannot list the bundled workloads"
for v in $variants; do
  record "workload_$v" "" 60 "$BIN/streamscope_workloads" --variant "$v" --size small
done
[ -x "$BIN/collector_known_ops" ] && record known_ops "" 60 "$BIN/collector_known_ops"
[ -x "$BIN/collector_memory_ops" ] && record memory_ops "" 60 "$BIN/collector_memory_ops"
record torch_matmul "" 120 python3 "$ROOT/workloads/torch/matmul_loop.py" 20
record torch_compiled "" 200 python3 "$ROOT/workloads/torch/compiled_step.py" 20

say "== 3. streamscope_record_start/stop inside a PyTorch process"
rm -f "$T"/section*.sqlite*
timeout 120 python3 "$ROOT/workloads/torch/record_section.py" "$LIB" "$T/section1.sqlite" "$T/section2.sqlite" \
  > "$T/section.log" 2>&1
rc=$?
say "record_section.py rc=$rc: $(grep -a 'record_section:' "$T/section.log" | tail -1)"
grep -a 'streamscope' "$T/section.log" | head -5 | tee -a "$SUMMARY"
python3 "$ROOT/tools/gpu/record_section_check.py" "$T/section1.sqlite" "$T/section2.sqlite" 2>&1 | tee -a "$SUMMARY"
[ -f "$T/section1.sqlite" ] && python3 "$ROOT/tools/gpu/submitter_check.py" "$T/section1.sqlite" section1 | tee -a "$SUMMARY"

say "== 4. overhead A/B, launch-bound (200k kernels + 50k copies), interleaved, 5 runs each"
if late 300; then say "SKIP (time)"; else
  CONFIGS="untraced streamscope_no_submit streamscope_default" timeout 150 \
    "$ROOT/bench/collector/run_launch_bound.sh" "$BUILD" 5 > "$OUT/bench.log" 2>&1
  say "bench rc=$?"
  python3 - "$OUT/bench.log" <<'PY' | tee -a "$SUMMARY"
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) rep=\d+ seconds=([0-9.]+)", line)
    if m:
        runs.setdefault(m.group(1), []).append(float(m.group(2)))
for cfg, xs in runs.items():
    print(f"{cfg}: median {statistics.median(xs):.3f} s of {len(xs)} runs {xs}")
b, a = runs.get("streamscope_no_submit"), runs.get("streamscope_default")
if b and a:
    r = statistics.median(a) / statistics.median(b)
    print(f"{'PASS' if r <= 1.05 else 'FAIL'} default with submit / without: {r:.3f}x (target <= 1.05)")
else:
    print("FAIL bench: missing runs (see bench.log)")
PY
fi

say "== 2. whole driver API (+driver): which record a kernel's correlation id matches"
if late 360; then say "SKIP (time)"; else
  record torch_matmul_driver "+driver" 60 python3 "$ROOT/workloads/torch/matmul_loop.py" 20
  record workload_launch_individual_driver "+driver" 40 "$BIN/streamscope_workloads" --variant launch_individual --size small
fi

say "== done in $((SECONDS - START)) s"
cd "$T" && tar czf "$OUT/traces.tgz" --exclude='*.sqlite-wal' --exclude='*.sqlite-shm' . 2>/dev/null
rm -rf "$T"
