#!/usr/bin/env python3
"""Small data-parallel training run for streamscope's multi-process analysis.

Run with torchrun, one process per GPU (NCCL), for example:

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
      streamscope run -o 'trace-%q{RANK}.sqlite' -- \
      torchrun --nproc-per-node=2 workloads/torch/ddp_train.py
    streamscope report --nvtx measured trace-*.sqlite

(workloads/torch/run_ddp.sh does exactly this.) Each rank trains the same
MLP on its own shard of a fixed random regression problem with
DistributedDataParallel: gradient all-reduces (NCCL kernels) run on NCCL's
stream while the backward pass still computes earlier layers' gradients, so
communication can overlap compute. The training steps after the warm-up are
inside the NVTX range "measured". Validation: after training every rank holds
the same parameters (checked with an all-reduce of a checksum) and the loss
went down; the result is printed and marked as "validation=passed" or
"validation=failed: ..." (NVTX mark, default domain). Exit status 0 passed,
3 failed.
"""

import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="measured training steps")
    parser.add_argument("--warmup", type=int, default=3, help="steps before the measured range")
    parser.add_argument("--width", type=int, default=2048, help="hidden width of the MLP")
    parser.add_argument("--layers", type=int, default=6, help="hidden layers")
    parser.add_argument("--batch", type=int, default=256, help="samples per rank and step")
    parser.add_argument("--bucket-mb", type=int, default=4,
                        help="DDP gradient bucket size (smaller: more, earlier all-reduces)")
    args = parser.parse_args()

    for var in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        # NVLink multicast stays off on shared machines (see workloads/README.md).
        os.environ.setdefault(var, "0" if var == "NCCL_NVLS_ENABLE" else "1")

    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if not torch.cuda.is_available():
        print(f"ddp_train rank {rank}: no CUDA GPU", file=sys.stderr)
        return 1
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=device)
    torch.cuda.nvtx.mark(f"workload=ddp_train rank={rank} world={world}")

    torch.manual_seed(1234)  # same initial model on every rank
    layers = [nn.Linear(256, args.width), nn.ReLU()]
    for _ in range(args.layers):
        layers += [nn.Linear(args.width, args.width), nn.ReLU()]
    layers += [nn.Linear(args.width, 1)]
    model = nn.Sequential(*layers).to(device)
    ddp = DistributedDataParallel(model, device_ids=[local_rank], bucket_cap_mb=args.bucket_mb)
    # Adam on unit-variance targets converges at any step count; plain SGD
    # at this depth diverged over 200 steps (loss 237.8 -> 256.5 on the H200).
    optimizer = torch.optim.Adam(ddp.parameters(), lr=1e-3)

    generator = torch.Generator(device="cpu").manual_seed(100 + rank)  # this rank's shard
    true_w = torch.randn(256, 1, generator=torch.Generator().manual_seed(7))
    x_all = torch.randn(args.steps + args.warmup, args.batch, 256, generator=generator)
    y_all = x_all @ true_w / 16.0  # 256 unit-variance inputs: targets of unit variance
    x_all, y_all = x_all.to(device), y_all.to(device)

    def step(i):
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(ddp(x_all[i]), y_all[i])
        loss.backward()
        optimizer.step()
        return loss

    losses = []
    for i in range(args.warmup):
        losses.append(step(i).item())
    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.nvtx.range_push("measured")
    for i in range(args.warmup, args.warmup + args.steps):
        # One range per step, as training loops annotate them: `report --nvtx
        # step` analyzes every step as its own window. The range closes when
        # the host has queued the step, usually before the GPU ran it.
        torch.cuda.nvtx.range_push("step")
        losses.append(step(i).detach())
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    losses = [float(v) for v in losses]

    # Every rank must hold identical parameters after DDP's all-reduces.
    checksum = torch.stack([p.detach().double().sum() for p in model.parameters()]).sum()
    low, high = checksum.clone(), checksum.clone()
    dist.all_reduce(low, op=dist.ReduceOp.MIN)
    dist.all_reduce(high, op=dist.ReduceOp.MAX)
    problems = []
    if float(high - low) != 0.0:
        problems.append(f"parameters differ across ranks (checksums {float(low)} .. {float(high)})")
    # Each step sees a fresh batch, so single losses are noisy: compare the
    # mean of the first and of the last tenth of the steps.
    tenth = max(1, len(losses) // 10)
    first, last = sum(losses[:tenth]) / tenth, sum(losses[-tenth:]) / tenth
    if not last < first:
        problems.append(f"loss did not decrease (mean of first {tenth} {first:.4f} -> last {tenth} {last:.4f})")
    validation = "passed" if not problems else "failed: " + "; ".join(problems)
    torch.cuda.nvtx.mark(f"validation={validation}")
    print(f"ddp_train rank={rank} world={world} steps={args.steps} loss {losses[0]:.4f} -> "
          f"{losses[-1]:.4f} validation={validation}", flush=True)
    dist.destroy_process_group()
    return 0 if not problems else 3


if __name__ == "__main__":
    sys.exit(main())
