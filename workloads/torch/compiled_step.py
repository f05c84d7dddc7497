"""A torch.compile'd training-like step (Inductor generates Triton kernels,
launched through the driver API): a small MLP with layer norm and GELU,
forward and backward. Prints "compiled_step: ok" at the end.
Compiles in this process (TORCHINDUCTOR_COMPILE_THREADS=1 by default) so
that the compiled kernels run in the traced process only.
Usage: python3 compiled_step.py [steps=20]"""
import os
import sys

os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
import torch  # noqa: E402

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.LayerNorm(512), torch.nn.GELU(),
    torch.nn.Linear(512, 256)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)


@torch.compile
def step(x):
    y = model(x)
    loss = (y * y).mean()
    loss.backward()
    return loss


x = torch.randn(64, 256, device="cuda")
for _ in range(steps):
    opt.zero_grad(set_to_none=True)
    loss = step(x)
    opt.step()
torch.cuda.synchronize()
print("compiled_step: ok", float(loss))
