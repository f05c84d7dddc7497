#!/usr/bin/env bash
# Reliability tests in one batch on the GPU machine, from the
# repository root there, with out/gpu staged here first:
#   tools/gpu/collector_stage.sh BUILD && tests/workloads/stage_for_gpu.sh BUILD \
#     && tests/reliability/stage_for_gpu.sh BUILD
# Usage: tools/gpu/reliability_check.sh [SECTION...]  (default: all of
# exits processes files coexist heavy workloads). Writes at most 8 files
# to $OUT: summary.txt (machine, every ok/FAIL and figures line), one log
# per section, details.tgz (stdout/stderr of every run, small traces).
set -uo pipefail
: "${OUT:?set OUT to the folder for results}"
export STREAMSCOPE_BUILD_DIR=$PWD/out/gpu
W=/tmp/reliability; rm -rf "$W"; mkdir -p "$W"
export STREAMSCOPE_TEST_OUT=$W
export PATH=/usr/local/cuda/bin:$PATH
sections=${*:-exits processes files coexist heavy workloads}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  echo "cores $(nproc), $(uname -r), $(python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1)"
} >"$OUT/summary.txt"
for s in $sections; do
  case $s in heavy) limit=120 ;; workloads) limit=90 ;; coexist) limit=90 ;; *) limit=60 ;; esac
  t0=$(date +%s)
  timeout $limit tests/reliability/reliability_gpu_test.sh "$s" >"$OUT/$s.log" 2>&1
  rc=$?
  echo "=== $s: rc=$rc in $(($(date +%s) - t0)) s" >>"$OUT/summary.txt"
  grep -E "^(ok|FAIL|NOTE|figures|measure|PASSED|FAILED)" "$OUT/$s.log" >>"$OUT/summary.txt"
done
cd "$W" && find . -name '*.sqlite' -size +20M -delete; tar czf "$OUT/details.tgz" . 2>/dev/null
ls -la "$OUT"; grep -cE "^ok" "$OUT/summary.txt"; grep -E "^(FAIL|===)" "$OUT/summary.txt"
