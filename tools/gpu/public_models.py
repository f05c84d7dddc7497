#!/usr/bin/env python3
"""Training loops of public PyTorch models (none written by us), to check
streamscope's conclusions on programs nobody on the team wrote.

    python3 tools/gpu/public_models.py resnet18        # torchvision ResNet-18: cuDNN convs, cuBLAS
    python3 tools/gpu/public_models.py resnet18_loader # same, with a CPU-bound input pipeline
    python3 tools/gpu/public_models.py gpt2_compile    # HF transformers GPT-2 (4 layers), torch.compile: Triton
    python3 tools/gpu/public_models.py vit_timm        # timm ViT-S/16, AMP (bf16)

Each runs warm-up steps, then --steps steps, each in an NVTX range 'step'
(as training loops annotate them), and prints the loss of the first and
last step. Models are randomly initialized (no weights are downloaded).
What a correct analysis concludes for each is in workloads/README.md.
"""
import argparse
import sys
import time

import torch
import torch.nn as nn


def resnet18(args, loader_bound=False):
    import torchvision
    model = torchvision.models.resnet18(weights=None, num_classes=100).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    batch = 64
    gen = torch.Generator().manual_seed(0)
    fixed_x = torch.randn(batch, 3, 224, 224, generator=gen)
    fixed_y = torch.randint(0, 100, (batch,), generator=gen)

    def next_batch():
        if loader_bound:
            # A CPU-side augmentation as data loaders do (pageable tensors,
            # blocking copy): the GPU waits for it every step.
            x = fixed_x.flip(3) * 1.01 + torch.randn(batch, 3, 224, 224, generator=gen) * 0.01
            return x.cuda(), fixed_y.cuda()
        return fixed_x.cuda(non_blocking=True), fixed_y.cuda(non_blocking=True)

    if not loader_bound:
        fixed_x = fixed_x.pin_memory()
        fixed_y = fixed_y.pin_memory()
    return model, opt, loss_fn, next_batch


def gpt2_compile(args):
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=4, n_head=8, n_embd=512, vocab_size=8192, n_positions=256)
    model = GPT2LMHeadModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 8192, (16, 256), generator=gen).pin_memory()
    compiled = torch.compile(model)

    def step_fn(x):
        out = compiled(input_ids=x, labels=x)
        return out.loss

    return compiled, opt, step_fn, lambda: tokens.cuda(non_blocking=True)


def vit_timm(args):
    import timm
    model = timm.create_model("vit_small_patch16_224", pretrained=False, num_classes=100).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 3, 224, 224, generator=gen).pin_memory()
    y = torch.randint(0, 100, (64,), generator=gen).pin_memory()
    return model, opt, loss_fn, lambda: (x.cuda(non_blocking=True), y.cuda(non_blocking=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=["resnet18", "resnet18_loader", "gpt2_compile", "vit_timm"])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--range", default="step",
                        help="NVTX range around each step (default 'step'; '' = none: compare's window tests "
                             "record the same loop renamed or without ranges)")
    args = parser.parse_args()
    torch.manual_seed(0)
    losses = []

    if args.model == "gpt2_compile":
        model, opt, step_fn, next_batch = gpt2_compile(args)

        def one_step():
            x = next_batch()
            loss = step_fn(x)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss
    else:
        if args.model == "vit_timm":
            model, opt, loss_fn, next_batch = vit_timm(args)
        else:
            model, opt, loss_fn, next_batch = resnet18(args, args.model == "resnet18_loader")
        amp = args.model == "vit_timm"

        def one_step():
            x, y = next_batch()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
                loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss

    for _ in range(args.warmup):
        one_step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(args.steps):
        if args.range:
            torch.cuda.nvtx.range_push(args.range)
        loss = one_step()
        if i in (0, args.steps - 1):
            losses.append(float(loss))  # a sync, as logging does
        if args.range:
            torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"public_models: {args.model} steps={args.steps} {dt * 1e3 / args.steps:.2f} ms/step "
          f"loss first={losses[0]:.4f} last={losses[-1]:.4f}")
    return 0 if all(l == l for l in losses) else 3


if __name__ == "__main__":
    sys.exit(main())
