#!/usr/bin/env bash
# The main job: install what is needed, build, then profile the bundled
# reference workloads and print the report. Without a GPU, analyze the
# bundled traces recorded on an H200 instead, and say so.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
# Only what the main job needs: the CLI, and on a machine with a GPU the
# collector and the workloads (the test command builds tests, benchmarks and
# fuzz replays).
have_gpu=false
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then have_gpu=true; fi
if $have_gpu; then
  BUILD_TARGETS="streamscope streamscope_collector streamscope_workloads" tools/build.sh
else
  BUILD_TARGETS="streamscope" tools/build.sh
fi
BIN=${BUILD_DIR:-build}/bin
if $have_gpu && [ -x "$BIN/streamscope_workloads" ]; then
  OUT_DIR=${OUT_DIR:-streamscope-workloads}
  echo "streamscope: profiling the reference workloads into $OUT_DIR/"
  exec "$BIN/streamscope" workloads run --all --output-dir "$OUT_DIR"
fi
echo "streamscope: no CUDA GPU on this machine: analyzing the bundled traces recorded"
echo "streamscope: on an NVIDIA H200 (tests/data/*.sqlite) instead of profiling."
shopt -s nullglob
for variant in sequential overlapped pageable legacy_default implicit_sync cpu_starved \
               launch_individual launch_graph event_pipeline concurrent_kernels persistent_kernel; do
  trace=tests/data/$variant.sqlite
  [ -f "$trace" ] || continue
  echo
  echo "=================== $variant ($trace) ==================="
  "$BIN/streamscope" report --summary "$trace" || echo "streamscope: report failed for $trace (exit $?)"
done
echo
echo "streamscope: that was the summary of each trace; the full report of one:"
echo "  $BIN/streamscope report tests/data/overlapped.sqlite        (--section NAME picks parts; --help lists them)"
