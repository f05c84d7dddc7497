"""Two (or more) ranks of a data-parallel step loop with NCCL, for the
many-rank path: each step runs matmuls, then all-reduces a
gradient bucket; rank 1 sleeps 2 ms on the host before its compute in
every step from 10 on (a planted straggler). Each step is an NVTX range
"step". Run under torchrun (tools/gpu/dask_torchrun_record.sh)."""
import os
import time

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    x = torch.randn(2048, 2048, device="cuda")
    grad = torch.randn(8 << 20, device="cuda")
    for step in range(30):
        torch.cuda.nvtx.range_push("step")
        if rank == 1 and step >= 10:
            time.sleep(0.002)
        for _ in range(8):
            x = torch.tanh(x @ x) * 0.5
        dist.all_reduce(grad)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    dist.destroy_process_group()
    print(f"rank {rank}: done")


if __name__ == "__main__":
    main()
