#!/usr/bin/env bash
# Records the torch.profiler importer's real-trace fixtures on a GPU machine
# (run from the repository root) and checks them at once:
#   $OUT/torch_two_streams.json.gz   the program under torch.profiler
#   $OUT/torch_two_streams.sqlite    the same program under `streamscope run`
#   $OUT/torch_fixtures.log          versions, both reports, the test's result
# Then commit the two trace files to tests/data/torch/.
# BUILD_DIR (default build/) must hold bin/streamscope (with the collector,
# lib/libstreamscope_collector.so) and bin/torch_trace_test.
set -uo pipefail
: "${OUT:?set OUT to the output folder}"
BUILD=${BUILD_DIR:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT"
LOG=$OUT/torch_fixtures.log
rc=0
{
  date -u
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  echo "=== torch.profiler run"
  rm -f "$OUT/torch_two_streams.json.gz" "$OUT/torch_two_streams.sqlite"
  timeout 300 python3 "$HERE/record_torch_profiler.py" --mode torch --out "$OUT/torch_two_streams.json.gz" || rc=1
  echo "=== streamscope run"
  timeout 300 "$BUILD/bin/streamscope" run -o "$OUT/torch_two_streams.sqlite" -- \
    python3 "$HERE/record_torch_profiler.py" --mode plain || rc=1
  ls -la "$OUT"/torch_two_streams.*
  for f in "$OUT/torch_two_streams.json.gz" "$OUT/torch_two_streams.sqlite"; do
    echo "=== report --nvtx measured $f"
    "$BUILD/bin/streamscope" report --nvtx measured "$f" || rc=1
  done
  echo "=== test"
  STREAMSCOPE_TORCH_FIXTURES=$OUT "$BUILD/bin/torch_trace_test" --gtest_filter='TorchRealTrace.*' || rc=1
  echo "rc=$rc"
  exit "$rc"
} 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"
