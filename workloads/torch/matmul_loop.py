"""PyTorch matmul loop (cuBLAS launches its GEMMs through the driver API):
each step the host works 2 ms inside an NVTX range 'host_prepare', then
three 1024x1024 matmuls. Prints "matmul_loop: ok" at the end.
Usage: python3 matmul_loop.py [steps=20]"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
for _ in range(steps):
    torch.cuda.nvtx.range_push("host_prepare")
    time.sleep(0.002)
    torch.cuda.nvtx.range_pop()
    c = a @ b
    c = c @ b
    c = c @ b
torch.cuda.synchronize()
print("matmul_loop: ok", bool(torch.isfinite(c).all()))
