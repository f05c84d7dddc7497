#!/usr/bin/env python3
"""One deterministic two-stream PyTorch program, recorded by torch.profiler or
run plain (under `streamscope run`), for the torch.profiler importer's
real-trace test (tests/analyzer/importers/torch/torch_real_trace_test.cc).

Each step: a pinned 16 MiB host-to-device copy on a side stream, four
2048x2048 fp32 matmuls on the default stream (about 4x the copy's time, so
the copy is hidden), the default stream waiting for the side stream. Every
step is a `record_function("step")` and an NVTX range "step"; all steps sit
inside "measured" (both kinds too), after untraced warm-up steps, so both
tools see the same work in the same window: torch.profiler records
record_function ranges as user annotations, streamscope records NVTX ranges.
CUPTI admits one subscriber per process, hence two runs of the same program.

  record_torch_profiler.py --mode torch --out $OUT/torch_two_streams.json.gz
  streamscope run -o $OUT/torch_two_streams.sqlite -- \
      python3 record_torch_profiler.py --mode plain
"""
import argparse
import gzip
import os
import shutil
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile, record_function


class Range:
    """A record_function and an NVTX range of the same name."""

    def __init__(self, name):
        self.name = name
        self.rf = record_function(name)

    def __enter__(self):
        self.rf.__enter__()
        torch.cuda.nvtx.range_push(self.name)

    def __exit__(self, *exc):
        torch.cuda.nvtx.range_pop()
        self.rf.__exit__(*exc)
        return False


def build(size, copy_mib):
    torch.manual_seed(18)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    state = {
        "side": torch.cuda.Stream(),
        "a": torch.randn(size, size, device=dev),
        "b": torch.randn(size, size, device=dev) / size ** 0.5,
        "out": torch.empty(size, size, device=dev),
        "host": torch.randn(copy_mib * 1024 * 1024 // 4).pin_memory(),
        "dst": torch.empty(copy_mib * 1024 * 1024 // 4, device=dev),
    }
    return state


def step(s, matmuls):
    with torch.cuda.stream(s["side"]):
        s["dst"].copy_(s["host"], non_blocking=True)
    for _ in range(matmuls):
        torch.mm(s["a"], s["b"], out=s["out"])
    torch.cuda.current_stream().wait_stream(s["side"])


def measured(s, steps, matmuls):
    with Range("measured"):
        for _ in range(steps):
            with Range("step"):
                step(s, matmuls)
        torch.cuda.synchronize()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mode", choices=["torch", "plain"], required=True)
    p.add_argument("--out", help="--mode torch: the trace to write (.json or .json.gz)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--matmuls", type=int, default=4)
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--copy-mib", type=int, default=16)
    args = p.parse_args()
    if args.mode == "torch" and not args.out:
        p.error("--mode torch needs --out")
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device", file=sys.stderr)
        return 77

    s = build(args.size, args.copy_mib)
    for _ in range(args.warmup):  # cuBLAS handles, workspaces, allocator pools
        step(s, args.matmuls)
    torch.cuda.synchronize()

    if args.mode == "plain":
        measured(s, args.steps, args.matmuls)
    else:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            measured(s, args.steps, args.matmuls)
        # Kineto writes plain JSON; compress it ourselves (older torch
        # versions do not gzip in export_chrome_trace).
        with tempfile.TemporaryDirectory() as tmp:
            plain = os.path.join(tmp, "trace.json")
            prof.export_chrome_trace(plain)
            if args.out.endswith(".gz"):
                with open(plain, "rb") as fin, gzip.open(args.out, "wb", compresslevel=9) as fout:
                    shutil.copyfileobj(fin, fout)
            else:
                shutil.copyfile(plain, args.out)
    print(f"record_torch_profiler: mode={args.mode} steps={args.steps} matmuls={args.matmuls} "
          f"size={args.size} copy={args.copy_mib} MiB torch={torch.__version__} cuda={torch.version.cuda} "
          f"device={torch.cuda.get_device_name()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
