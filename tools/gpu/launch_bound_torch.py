"""Launch-bound PyTorch loop: N tiny in-place adds on one tensor (one kernel
launch each, plus the framework's cudaGetDevice/cudaGetLastError calls).
Prints 'seconds=S' for the timed loop only (CUDA and CUPTI start-up left out).

  python3 launch_bound_torch.py [N=20000]
"""
import sys
import time

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
x = torch.zeros(1, device="cuda")
for _ in range(500):  # warm-up: caching allocator, kernel load
    x.add_(1)
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(n):
    x.add_(1)
torch.cuda.synchronize()
elapsed = time.perf_counter() - t0
assert x.item() == n + 500, x.item()
print(f"seconds={elapsed:.4f}")
