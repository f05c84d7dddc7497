#!/usr/bin/env bash
# Periodic-flush A/B on the lent GPU (session 3): the collector from before
# and after the periodic flush stopped forcing CUPTI, on workloads whose GPU
# work is queued or running while the flush thread runs. Counts the ops that
# arrived without timestamps (the importer's op_zero_timestamp).
#   OUT=... tools/gpu/flush_ab_session.sh   (out/gpu staged; the old library
#   in out/gpu/lib/before_flush_fix/)
set -uo pipefail
: "${OUT:?}"
root=$PWD
bin=$root/out/gpu/bin
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/ab; rm -rf $W; mkdir -p $W
zero() {  # "zero-timestamp ops / all ops" of a trace
  read -r n z <<<"$(python3 "$root/tools/gpu/count_untimed_ops.py" "$1")"
  echo "$z zero-timestamp ops of $n"
}
for which in before after; do
  lib=$root/out/gpu/lib/libstreamscope_collector.so
  [ $which = before ] && lib=$root/out/gpu/lib/before_flush_fix/libstreamscope_collector.so
  for flush in 500 2; do
    for v in overlapped launch_individual persistent_kernel; do
      t=$W/$which-$flush-$v.sqlite
      STREAMSCOPE_FLUSH_MS=$flush $bin/streamscope run --collector "$lib" -o "$t" -- \
        $bin/streamscope_workloads --variant $v --size large > $W/$which-$flush-$v.log 2>&1
      echo "$which flush_ms=$flush $v (large): rc=$? $(zero "$t")"
    done
  done
  STREAMSCOPE_COLLECTOR=$lib timeout 240 workloads/torch/run_ddp.sh $bin $W/ddp-$which 1 --steps 200 > $W/ddp-$which.log 2>&1
  echo "$which ddp_train 200 steps (flush_ms=500): rc=$? $(zero $W/ddp-$which/trace-0.sqlite)"
  STREAMSCOPE_FLUSH_MS=2 STREAMSCOPE_COLLECTOR=$lib timeout 240 workloads/torch/run_ddp.sh $bin $W/ddp2-$which 1 --steps 200 > $W/ddp2-$which.log 2>&1
  echo "$which ddp_train 200 steps (flush_ms=2): rc=$? $(zero $W/ddp2-$which/trace-0.sqlite)"
done
cd $W && tar czf "$OUT/ab.tgz" --exclude='*.sqlite-wal' --exclude='*.sqlite-shm' *.log ddp*/*.log 2>/dev/null
