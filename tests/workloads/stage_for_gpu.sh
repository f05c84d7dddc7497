#!/usr/bin/env bash
# Adds the workloads program to the GPU staging folder out/gpu/bin (made by
# tools/gpu/collector_stage.sh BUILD_DIR, which stages streamscope and the
# collector: run that first, it clears out/gpu). The program needs only the
# CUDA driver and the C++ runtime (static cudart, no Abseil).
# Usage: tests/workloads/stage_for_gpu.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: stage_for_gpu.sh BUILD_DIR}
mkdir -p "$root/out/gpu/bin"
strip -o "$root/out/gpu/bin/streamscope_workloads" "$build/bin/streamscope_workloads"
ls -la "$root/out/gpu/bin"
