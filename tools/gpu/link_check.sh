#!/usr/bin/env bash
# Rates from the device's link: checks on the GPU machine that the
# collector records each device's host link (device_link table: PCIe current
# and max generation and width, NVLink-C2C) and that the analyzer uses it.
# Run from the repository root after
#   tools/gpu/collector_stage.sh build && tests/workloads/stage_for_gpu.sh build
#   OUT=/some/dir tools/gpu/link_check.sh
# Records (each with `streamscope run`, default kinds):
#   overlapped         bundled workload, pinned copies (fixture sizes)
#   overlapped_large   the same with 64 MiB chunks (copies long enough to
#                      show the link's rate)
#   pageable_large     pageable copies, 64 MiB chunks: no pinned copy in the
#                      trace, so the pageable judgement must use the link
#   simpleStreams, bandwidthTest_pinned  NVIDIA samples, when .ext/ is carried
#                      (copy_bandwidth_bound must fire on both)
# and for each prints the link row(s), the device line of `report`, and
# `diagnose`. Everything (traces, logs, link_check.log) goes to $OUT.
# Wall time: well under 3 minutes.
set -u
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT"
exec > >(tee "$OUT/link_check.log") 2>&1
ROOT=$PWD
SS=$ROOT/out/gpu/bin/streamscope
WL=$ROOT/out/gpu/bin/streamscope_workloads
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STREAMSCOPE_COLLECTOR=$ROOT/out/gpu/lib/libstreamscope_collector.so
T0=$SECONDS
stamp() { echo "=== [$((SECONDS - T0)) s] $*"; }

stamp "what the machine offers (sources of link facts)"
nvidia-smi --query-gpu=index,name,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max \
  --format=csv 2>&1 | head -5
ldconfig -p 2>/dev/null | grep -m2 libnvidia-ml || echo "libnvidia-ml not in the linker cache"
ls -d /sys/bus/pci/devices 2>&1 | head -1
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | head -1 | tr 'A-F' 'a-f' | sed 's/^0000//')
for f in current_link_speed current_link_width max_link_speed max_link_width; do
  printf '%s: %s\n' "$f" "$(cat "/sys/bus/pci/devices/$bus/$f" 2>&1)"
done

link_rows() {  # TRACE: the device_link rows with their source's name, and the device
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
have = db.execute("SELECT count(*) FROM sqlite_master WHERE name='device_link'").fetchone()[0]
if not have:
    print("  NO device_link TABLE"); sys.exit()
rows = db.execute("""SELECT l.device_id, l.pci_bus_id, e.name, l.pcie_gen_current, l.pcie_width_current,
                            l.pcie_gen_max, l.pcie_width_max, l.c2c_enabled
                     FROM device_link l LEFT JOIN enum_link_source e ON e.value = l.source""").fetchall()
print("  device_link rows:", len(rows))
for r in rows:
    print("  device %s bus %s source %s | current gen %s x%s | max gen %s x%s | c2c %s" % r)
for r in db.execute("SELECT id, name, pci_bus_id FROM device"):
    print("  device row:", r)
stat = db.execute("SELECT value FROM collector_stat WHERE key='records_dropped_writer'").fetchone()
print("  records_dropped_writer:", stat[0] if stat else 0)
PY
}

check() {  # NAME: link rows, report's device line, diagnose (text and JSON)
  local name=$1 trace="$OUT/$1.sqlite"
  [ -f "$trace" ] || { echo "!!! $trace missing"; return; }
  echo "--- $name: link"
  link_rows "$trace"
  "$SS" report "$trace" > "$OUT/$name.report.txt" 2>&1
  echo "report rc=$?"; grep -m1 -A1 -E "^  device [0-9]+:" "$OUT/$name.report.txt"
  "$SS" diagnose "$trace" > "$OUT/$name.diagnose.txt" 2>&1
  echo "diagnose rc=$?"
  grep -E "primary|copy_bandwidth_bound|pageable_copies|theoretical|reference|saving" "$OUT/$name.diagnose.txt" | head -12
  "$SS" diagnose --format json "$trace" > "$OUT/$name.diagnose.json" 2>/dev/null || true
}

record() {  # NAME ARGS...: streamscope run -o $OUT/NAME.sqlite -- ARGS
  local name=$1; shift
  stamp "record $name"
  timeout 120 "$SS" run --force --no-summary -o "$OUT/$name.sqlite" -- "$@" > "$OUT/$name.run.log" 2>&1
  echo "$name rc=$?"; tail -3 "$OUT/$name.run.log"
}

record overlapped "$WL" --variant overlapped --size small --chunks 8 --chunk-mib 4
record overlapped_large "$WL" --variant overlapped --chunks 8 --chunk-mib 64
record pageable_large "$WL" --variant pageable --chunks 8 --chunk-mib 64
for n in overlapped overlapped_large pageable_large; do check $n; done

if [ -x .ext/samples/bin/simpleStreams ]; then
  record simpleStreams .ext/samples/bin/simpleStreams
  record bandwidthTest_pinned .ext/samples/bin/bandwidthTest --memory=pinned --htod
  for n in simpleStreams bandwidthTest_pinned; do check $n; done
else
  echo "(.ext/samples not carried: NVIDIA samples skipped)"
fi

stamp "expectations"
expect() {  # DESCRIPTION COMMAND...: prints ok or !!! with the description
  if "${@:2}" >/dev/null 2>&1; then echo "ok   $1"; else echo "!!!  $1"; fi
}
# Text reports wrap at 120 columns: match sentences on the text joined into one line.
flat_grep() { tr '\n' ' ' < "$2" | tr -s ' ' | grep -q -- "$1"; }
row() { python3 -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); sys.exit(0 if r and r[0] else 1)" "$@"; }
for n in overlapped overlapped_large pageable_large; do
  expect "$n: one device_link row for device 0" row "$OUT/$n.sqlite" "SELECT count(*) = 1 FROM device_link WHERE device_id = 0"
done
if row "$OUT/overlapped.sqlite" "SELECT source > 0 FROM device_link"; then
  expect "link read: max generation 1-6 and width 1-32" row "$OUT/overlapped.sqlite" \
    "SELECT pcie_gen_max BETWEEN 1 AND 6 AND pcie_width_max BETWEEN 1 AND 32 FROM device_link"
  expect "report's device line names the host link" grep -q "host link PCIe" "$OUT/overlapped.report.txt"
  expect "pageable_large judged against the link's theoretical ceiling" \
    flat_grep "device link's theoretical ceiling" "$OUT/pageable_large.diagnose.txt"
else
  echo "NOTE link not readable here (source none): the pageable judgement must say the rate is unknown"
  expect "pageable_large: rate unknown, no constant" flat_grep "pinned rate is unknown" "$OUT/pageable_large.diagnose.txt"
fi
if [ -f "$OUT/simpleStreams.sqlite" ]; then
  expect "simpleStreams: primary cause copy_bandwidth_bound" \
    flat_grep "copy_bandwidth_bound: [^<]*<- primary cause" "$OUT/simpleStreams.diagnose.txt"
  expect "bandwidthTest_pinned: copy_bandwidth_bound (H2D)" flat_grep "H2D copies on device 0 .* kept a copy engine busy" \
    "$OUT/bandwidthTest_pinned.diagnose.txt"
fi
stamp "done"
ls -la "$OUT"
