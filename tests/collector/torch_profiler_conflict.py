"""torch.profiler inside a process the collector already traces: CUDA 13
allows one CUPTI subscriber, so one of the two tools must step aside without
breaking the program. Exits 0 if the computation is right."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.ones(1000, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    y = (x * 2).sum().item()
print("torch_profiler_conflict:", "ok" if y == 2000.0 else "wrong", len(prof.events()))
