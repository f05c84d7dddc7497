#!/usr/bin/env bash
# Records a data-parallel PyTorch run, one trace per rank, and reports them
# together:
#   workloads/torch/run_ddp.sh BIN_DIR OUT_DIR [NPROC [ddp_train.py args...]]
# BIN_DIR holds `streamscope` (its collector is found at BIN_DIR/../lib).
# NVLink multicast stays off (shared machines): NCCL_NVLS_ENABLE=0 and the
# PyTorch/NVSHMEM equivalents are exported for every process.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?BIN_DIR}; out=${2:?OUT_DIR}; nproc=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
rm -f "$out"/trace-*.sqlite*
"$bin/streamscope" run -o "$out/trace-%q{RANK}.sqlite" -- \
  python3 -m torch.distributed.run --standalone --nproc-per-node="$nproc" "$here/ddp_train.py" "$@"
"$bin/streamscope" report --nvtx measured "$out"/trace-*.sqlite
