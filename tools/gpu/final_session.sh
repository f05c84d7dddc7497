#!/usr/bin/env bash
# The lead's closing batch on the lent GPU machine: tools/gpu/team_session.sh
# (collector known-answer tests, every workload plain/traced/checked, the
# fixtures, reports, compare, diagnose, exports, issues 8 and 10) and then the
# reliability sections, whose files are packed into $OUT/reliability.tgz
# (the device tool returns at most 8 files). Stage out/gpu first with
# tools/gpu/collector_stage.sh BUILD, tests/workloads/stage_for_gpu.sh BUILD
# and tests/reliability/stage_for_gpu.sh BUILD.
set -uo pipefail
: "${OUT:?}"
root=$PWD
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
t0=$(date +%s)
tools/gpu/team_session.sh > /tmp/team_session.out 2>&1
echo "team session: $(( $(date +%s) - t0 )) s"
R=/tmp/reliability_out; rm -rf $R; mkdir -p $R
t1=$(date +%s)
OUT=$R tools/gpu/reliability_session.sh ${RELIABILITY_SECTIONS:-exits processes files coexist workloads heavy} > $R/session.out 2>&1
echo "reliability: $(( $(date +%s) - t1 )) s"
cp /tmp/team_session.out $R/
tar czf "$OUT/reliability.tgz" -C $R .
grep -E "^(FAIL|===)" $R/summary.txt
ls -la "$OUT"
