"""A small MLP training loop that reads its loss back with `.item()`: every
step (--every 1, a round trip per iteration: the GPU idles while the host
copies the loss back, synchronizes and tests it before launching the next
step) or every k steps (--every 50, the remedy). Same GPU work in both: the
same kernels each step; only the number of 4-byte loss read-backs differs.

NVTX: one range "measured" around the loop (its final synchronize
included), one range "step" per step, and a mark "validation=passed" or
"validation=failed: ..." (default domain) after it. Exit status 0 passed,
3 failed.
Usage: python3 item_per_step.py [--steps 300] [--every 1]"""
import argparse
import math
import sys

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--every", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 1)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(1024, 256, device="cuda")
    y = x[:, :1].clone()
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
