"""An MLP training loop that reads its loss back with `.item()`: every step
(--every 1, a round trip per iteration: the host waits for the step's GPU
work to finish, copies the loss back and tests it, and only then prepares
and launches the next step) or every k steps (--every 50, the remedy: the
host prepares step i+1 while the GPU still runs step i). Same GPU work in
both: the same kernels each step; only the number of 4-byte loss read-backs
differs.

Each step starts with host preparation of its batch (--prep-ms of CPU work,
default 1.5 ms, standing for a data loader's work on the submitting
thread). With the read-back every step the preparation cannot overlap the
previous step's GPU work: the GPU idles through it. On an H200 the GPU
work of a step (batch 4096, two 2048-wide layers: about 1.2 ms) is shorter
than the host's (the preparation and PyTorch's own work per step), so the
loop stays host-bound without the read-backs, and removing the host work
would save more than removing the read-backs: both are real causes.

NVTX: one range "measured" around the loop (its final synchronize
included), one range "step" per step, and a mark "validation=passed" or
"validation=failed: ..." (default domain) after it. Exit status 0 passed,
3 failed.
Usage: python3 item_per_step.py [--steps 300] [--every 1] [--prep-ms 1.5]"""
import argparse
import math
import sys
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--prep-ms", type=float, default=1.5)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048),
                                torch.nn.ReLU(), torch.nn.Linear(2048, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(4096, 256, device="cuda")
    y = x[:, :1].clone()

    def prepare():
        """The host's preparation of a batch: a fixed amount of CPU time."""
        end = time.perf_counter() + args.prep_ms / 1e3
        acc = 0
        while time.perf_counter() < end:
            acc += 1
        return acc

    # Warm-up outside the measured range: kernels loaded, allocator filled.
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    torch.cuda.synchronize()
    first = last = None
    torch.cuda.nvtx.range_push("measured")
    for step in range(args.steps):
        torch.cuda.nvtx.range_push("step")
        prepare()
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if (step + 1) % args.every == 0 or step + 1 == args.steps:
            value = loss.item()  # copy back, synchronize, test on the host
            if not math.isfinite(value):
                break
            first = value if first is None else first
            last = value
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    ok = first is not None and last is not None and math.isfinite(last) and last <= first
    validation = "passed" if ok else f"failed: loss {first} -> {last}"
    torch.cuda.nvtx.mark(f"validation={validation}")
    print(f"item_per_step: steps={args.steps} every={args.every} loss {first} -> {last} validation={validation}",
          flush=True)
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
