"""PyTorch with torch.profiler next to streamscope (CUDA 13 allows one CUPTI
subscriber per process). Each phase: 1 fill, 200 in-place multiplies and
1 sum kernel, then a sync; phases are timed on CLOCK_MONOTONIC_RAW (the
trace clock) so tests/reliability/torch_phases.py can count what the trace
holds in each.
  inside: phase A, then phase B under torch.profiler, then phase C
  first:  torch.profiler entered before CUDA starts: phase B in it, then C
Prints "torch_coexist: mode=M result=ok|wrong torch_cuda_kernels=N" and one
"phase NAME START END" line per phase; exits 0 if the results are right."""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

MULS = 200
phases = []


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)


def phase(name):
    t0 = now()
    x = torch.ones(4096, device="cuda")
    for _ in range(MULS):
        x.mul_(1.0)
    torch.cuda.synchronize()
    ok = x.sum().item() == 4096.0
    phases.append((name, t0, now()))
    time.sleep(0.05)
    return ok


mode = sys.argv[1]
ok = True
activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
if mode == "inside":
    ok &= phase("A")
    with profile(activities=activities) as prof:
        ok &= phase("B")
    ok &= phase("C")
elif mode == "first":
    with profile(activities=activities) as prof:
        ok &= phase("B")
    ok &= phase("C")
else:
    sys.exit(2)
kernels = [e for e in prof.events() if str(getattr(e, "device_type", "")).endswith("CUDA")]
print(f"torch_coexist: mode={mode} result={'ok' if ok else 'wrong'} torch_cuda_kernels={len(kernels)}")
for name, t0, t1 in phases:
    print(f"phase {name} {t0} {t1}")
sys.exit(0 if ok else 1)
