#!/usr/bin/env bash
# Adds the reliability tests' program to the GPU staging folder out/gpu/bin
# (after tools/gpu/collector_stage.sh BUILD_DIR, which clears out/gpu).
# Usage: tests/reliability/stage_for_gpu.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: stage_for_gpu.sh BUILD_DIR}
mkdir -p "$root/out/gpu/bin"
strip -o "$root/out/gpu/bin/reliability_ops" "$build/bin/reliability_ops"
