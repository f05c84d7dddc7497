"""Small PyTorch workload for the collector's GPU test: GEMMs, elementwise
kernels, H2D/D2H copies, syncs and NVTX ranges (5 x 'torch_step')."""
import sys

import torch

x = torch.randn(512, 512)                 # host
w = torch.randn(512, 512, device="cuda")
for step in range(5):
    torch.cuda.nvtx.range_push("torch_step")
    d = x.to("cuda", non_blocking=False)  # H2D
    y = d @ w                             # GEMM
    y = torch.relu(y) + 1.0               # elementwise
    s = y.sum()
    torch.cuda.synchronize()
    host = y[:4, :4].cpu()                # D2H
    torch.cuda.nvtx.range_pop()
print("torch_ops: ok", float(s) > 0, host.shape)
sys.exit(0)
