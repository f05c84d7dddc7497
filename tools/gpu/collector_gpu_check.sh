#!/usr/bin/env bash
# One batch on the GPU machine (run from the repository root there):
# every collector GPU test, the launch-bound benchmark and the fixture.
# Expects prebuilt binaries in out/gpu/{bin,lib} (tools/gpu/collector_stage.sh)
# and writes logs and traces under $OUT.
set -uo pipefail
export STREAMSCOPE_BUILD_DIR=$PWD/out/gpu
export STREAMSCOPE_TEST_OUT=$OUT/t
mkdir -p "$STREAMSCOPE_TEST_OUT"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; uname -r
  ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti* 2>&1 | head -3
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
} 2>&1 | tee "$OUT/machine.txt"
for t in "known_ops injection" "known_ops static" "known_ops preload" "known_ops run" "pytorch run" "faults run"; do
  echo "=== $t"; timeout 120 tools/gpu/collector_gpu_test.sh $t 2>&1
done 2>&1 | tee "$OUT/tests.log"
{
  echo "=== torch.profiler inside a traced process"
  timeout 120 "$STREAMSCOPE_BUILD_DIR/bin/streamscope" run --no-summary -o "$OUT/t/profiler_%p.sqlite" -- \
    python3 tests/collector/torch_profiler_conflict.py; echo "rc=$?"
} 2>&1 | tee -a "$OUT/tests.log"
echo "=== bench" | tee "$OUT/bench.log"
timeout 330 bench/collector/run_launch_bound.sh "$STREAMSCOPE_BUILD_DIR" 5 2>&1 | tee -a "$OUT/bench.log"
echo "=== fixture"
BUILD_DIR=$STREAMSCOPE_BUILD_DIR timeout 60 tools/gpu/collector_record_fixture.sh "$OUT/collector_known_ops.sqlite" 2>&1 | tee "$OUT/fixture.log"
cd "$STREAMSCOPE_TEST_OUT" && tar czf "$OUT/traces.tgz" *.sqlite *.stderr 2>/dev/null
ls -la "$OUT"
