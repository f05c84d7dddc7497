#!/usr/bin/env bash
# GPU check of streamscope.record (python/streamscope/record.py) on the lent
# GPU machine, run from the repository root there. Expects the staged
# binaries in out/gpu/{bin,lib} (tools/gpu/collector_stage.sh) built with
# the collector's streamscope_record_start/stop, and PyTorch. No install:
# the package runs from python/ (the GPU machine cannot reach PyPI).
# Writes $OUT/python_record/{check.log,*.sqlite}. Must end with
# "python_record: PASS" and exit 0 (python_record_check.py says what it checks).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export STREAMSCOPE_BIN=$ROOT/out/gpu/bin/streamscope
export STREAMSCOPE_COLLECTOR=$ROOT/out/gpu/lib/libstreamscope_collector.so
export PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT/python_record"
timeout 300 python3 "$ROOT/tools/gpu/python_record_check.py" "$OUT/python_record" 2>&1 | tee "$OUT/python_record/check.log"
exit "${PIPESTATUS[0]}"
