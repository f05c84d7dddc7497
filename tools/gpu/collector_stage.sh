#!/usr/bin/env bash
# Copies (stripped) what the GPU session needs from a build folder into
# out/gpu/{bin,lib}, small enough to carry to the GPU machine.
# Usage: tools/gpu/collector_stage.sh BUILD_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:?build dir}
rm -rf "$ROOT/out/gpu"; mkdir -p "$ROOT/out/gpu/bin" "$ROOT/out/gpu/lib"
for f in collector_known_ops collector_known_ops_static collector_other_subscriber collector_launch_bound collector_memory_ops \
         collector_capture_ranges streamscope_workloads; do
  strip -o "$ROOT/out/gpu/bin/$f" "$B/bin/$f"
done
for f in libstreamscope_collector.so libstreamscope_noop_consumer.so; do
  strip --strip-unneeded -o "$ROOT/out/gpu/lib/$f" "$B/lib/$f"
done
# The CLI links Debian's shared Abseil, SQLite, protobuf and zlib, which the
# GPU machine may lack: carry those libraries (in absl/) and start the CLI
# through a wrapper that finds them.
strip -o "$ROOT/out/gpu/bin/streamscope.real" "$B/bin/streamscope"
mkdir -p "$ROOT/out/gpu/absl"
for l in $(ldd "$B/bin/streamscope" | awk '/libabsl|libsqlite3|libprotobuf|libz\./ {print $3}'); do cp -L "$l" "$ROOT/out/gpu/absl/"; done
cat >"$ROOT/out/gpu/bin/streamscope" <<'WRAP'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH=$d/../absl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec "$d/streamscope.real" "$@"
WRAP
chmod +x "$ROOT/out/gpu/bin/streamscope"
# The export benchmark's trace generator (tools/gpu/bench_quiet.sh), where the
# build has it (tests enabled), started the same way.
if [ -x "$B/bin/make_export_trace" ]; then
  strip -o "$ROOT/out/gpu/bin/make_export_trace.real" "$B/bin/make_export_trace"
  for l in $(ldd "$B/bin/make_export_trace" | awk '/libabsl|libsqlite3|libprotobuf|libz\./ {print $3}'); do
    cp -L "$l" "$ROOT/out/gpu/absl/"
  done
  sed 's/streamscope\.real/make_export_trace.real/' "$ROOT/out/gpu/bin/streamscope" >"$ROOT/out/gpu/bin/make_export_trace"
  chmod +x "$ROOT/out/gpu/bin/make_export_trace"
fi
du -sh "$ROOT/out/gpu"
