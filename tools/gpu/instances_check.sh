#!/usr/bin/env bash
# The per-step breakdown on a real PyTorch loop: records
# tools/gpu/everyday_loops.py mlp_item (NVTX 'step' ranges, loss.item() every
# step) with a planted 20 ms host stall in step 30 (NVTX range 'stall'), and
# checks `report --section instances`: one row per step, step 30 slow
# (> 1.5x the median duration) and the longest (at most 3 slow steps: real
# steps jitter), its largest idle cause host_nvtx_range
# 'stall' of about 20 ms, and the rows' idle plus the idle between the steps
# equal to the window's idle. Also writes the HTML page.
# Run from the repository root on a GPU machine with torch and the CUDA build
# in build/ (bin/streamscope, lib/libstreamscope_collector.so); builds
# nothing. Writes $OUT/summary.txt, $OUT/instances.txt, $OUT/instances.json,
# $OUT/loop.html and $OUT/loop.sqlite.
#   OUT=... tools/gpu/instances_check.sh [BUILD_DIR]
# A correct result: summary.txt ends with "instances_check: ok".
set -u
: "${OUT:?set OUT to the output folder}"
BUILD=$(cd "${1:-build}" && pwd) || { echo "no build folder ${1:-build}"; exit 2; }
BIN=$BUILD/bin
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STREAMSCOPE_COLLECTOR=$BUILD/lib/libstreamscope_collector.so
mkdir -p "$OUT"
timeout 300 "$BIN/streamscope" run --no-summary --force -o "$OUT/loop.sqlite" -- \
  python3 tools/gpu/everyday_loops.py mlp_item --steps 60 --slow-step 30 --slow-ms 20 > "$OUT/run.log" 2>&1 ||
  { echo "instances_check: FAIL: run exited $? ($(tail -c 300 "$OUT/run.log" | tr '\n' ' '))" | tee "$OUT/summary.txt"; exit 1; }
"$BIN/streamscope" report "$OUT/loop.sqlite" --section instances > "$OUT/instances.txt" 2>&1
"$BIN/streamscope" report "$OUT/loop.sqlite" --format json > "$OUT/instances.json" 2>&1
"$BIN/streamscope" export "$OUT/loop.sqlite" --html "$OUT/loop.html" --force > /dev/null 2>&1
python3 - "$OUT/instances.json" <<'PY' | tee "$OUT/summary.txt"
import json, sys
w = json.load(open(sys.argv[1]))["traces"][0]["windows"][0]
s, rows = w["instances"], w["instances"]["rows"]
fails = []
if s["source"] != "nvtx_range" or s["nvtx_name"] != "step":
    fails.append(f"instances of {s['source']} {s['nvtx_name']}, want NVTX range 'step'")
slow = [r["instance"] for r in rows if r["slow"]]
print(f"{len(rows)} steps, median {s['median_ns'] / 1e3:.1f} us, slow {slow}")
if len(rows) != 60:
    fails.append(f"{len(rows)} rows, want 60")
# Step 30 must be slow and the longest; real steps jitter, so up to two
# more steps may cross 1.5x the median without failing the check.
longest = max(rows, key=lambda r: r["duration_ns"])["instance"] if rows else None
if 30 not in slow or longest != 30 or len(slow) > 3:
    fails.append(f"slow steps {slow} (longest {longest}), want 30 slow and the longest, at most 3 slow")
r30 = next((r for r in rows if r["instance"] == 30), None)
if r30:
    print(f"step 30: {r30['duration_ns'] / 1e6:.2f} ms, idle {r30['idle_ns'] / 1e6:.2f} ms, largest cause "
          f"{r30['top_cause']} {r30['top_nvtx_name'] or r30['top_api_name']} {r30['top_cause_ns'] / 1e6:.2f} ms")
    if (r30["top_cause"], r30["top_nvtx_name"]) != ("host_nvtx_range", "stall"):
        fails.append("step 30's largest idle cause is not host_nvtx_range 'stall'")
    if not 18e6 <= r30["top_cause_ns"] <= 30e6:
        fails.append(f"step 30's stall cost {r30['top_cause_ns']} ns, want about 20 ms")
idle = sum(r["idle_ns"] for r in rows) + s["outside_idle_ns"]
if idle != w["gap_causes"]["idle_ns"]:
    fails.append(f"rows' idle + between {idle} != window idle {w['gap_causes']['idle_ns']}")
for f in fails:
    print("FAIL:", f)
print("instances_check: " + ("ok" if not fails else "FAIL"))
sys.exit(1 if fails else 0)
PY
