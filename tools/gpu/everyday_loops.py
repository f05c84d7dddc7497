#!/usr/bin/env python3
"""Everyday PyTorch loops as users write them (public libraries, randomly
initialized, nothing downloaded), to check streamscope's conclusions on
patterns nobody on the team chose.

    python3 tools/gpu/everyday_loops.py mlp_item                   # loss.item() every step
    python3 tools/gpu/everyday_loops.py mlp_item --item-every 50   # the fix: read it every 50 steps
    python3 tools/gpu/everyday_loops.py mlp_item --slow-step 30    # step 30 stalls 20 ms on the host
    python3 tools/gpu/everyday_loops.py gpt2_generate              # HF GPT-2 greedy decoding
    python3 tools/gpu/everyday_loops.py loader_pinned              # DataLoader, pin_memory, 4 workers
    python3 tools/gpu/everyday_loops.py loader_pinned --item-ms 3  # same, workers too slow to keep up

Each prints one timing line ('everyday_loops: ...'). Steps run in NVTX
ranges 'step' (gpt2_generate: one range 'generate' per call), after warm-up
outside any range. What a correct analysis concludes for each is in
workloads/README.md.
"""
import argparse
import sys
import time

import torch
import torch.nn as nn


def mlp_item(args):
    """A small MLP trained on data already on the GPU; the only host-device
    traffic is reading the loss back, every --item-every steps (the same GPU
    work either way)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(256, 512, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")

    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    logged = []
    t0 = time.perf_counter()
    for i in range(args.steps):
        torch.cuda.nvtx.range_push("step")
        if i + 1 == args.slow_step:
            # A planted host stall inside one step (its own NVTX range):
            # the per-step breakdown must flag this step alone.
            torch.cuda.nvtx.range_push("stall")
            time.sleep(args.slow_ms / 1000.0)
            torch.cuda.nvtx.range_pop()
        loss = step()
        if (i + 1) % args.item_every == 0:
            # Every step (the default) is the commonest hidden sync: the host
            # waits for the step to finish before it launches the next one.
            logged.append(loss.item())
        torch.cuda.nvtx.range_pop()
    if not logged:
        logged.append(loss.item())
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"everyday_loops: mlp_item item_every={args.item_every} steps={args.steps} "
          f"{dt * 1e3 / args.steps:.3f} ms/step total={dt * 1e3:.1f} ms readbacks={len(logged)} "
          f"loss first={logged[0]:.4f} last={logged[-1]:.4f}")
    return logged


def gpt2_generate(args):
    """Hugging Face GPT-2 (6 layers, GPT-2 small's width) from a config,
    greedy decoding of --new-tokens tokens for a batch of prompts."""
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=6, n_head=12, n_embd=768, vocab_size=50257, n_positions=1024)
    model = GPT2LMHeadModel(cfg).cuda().eval()
    gen = torch.Generator().manual_seed(0)
    prompt = torch.randint(0, cfg.vocab_size, (8, 32), generator=gen).cuda()
    mask = torch.ones_like(prompt)

    def generate(n):
        # min_new_tokens keeps a random model from stopping at its end token.
        return model.generate(input_ids=prompt, attention_mask=mask, max_new_tokens=n, min_new_tokens=n,
                              do_sample=False, pad_token_id=cfg.eos_token_id)

    with torch.inference_mode():
        for _ in range(args.warmup):
            generate(8)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            torch.cuda.nvtx.range_push("generate")
            out = generate(args.new_tokens)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    tokens = args.steps * args.new_tokens
    print(f"everyday_loops: gpt2_generate calls={args.steps} new_tokens={args.new_tokens} batch=8 "
          f"{dt * 1e3 / tokens:.3f} ms/token total={dt * 1e3:.1f} ms out_shape={tuple(out.shape)}")
    return [float(out.shape[1])]


class UInt8Images(torch.utils.data.Dataset):
    """Images kept as uint8 (as decoded JPEGs are); --item-ms of host work per
    item stands for decoding and augmentation."""

    def __init__(self, n, item_ms):
        gen = torch.Generator().manual_seed(0)
        self.images = torch.randint(0, 256, (256, 3, 224, 224), dtype=torch.uint8, generator=gen)
        self.labels = torch.randint(0, 10, (256,), generator=gen)
        self.n = n
        self.item_ms = item_ms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.item_ms > 0:
            time.sleep(self.item_ms / 1000.0)
        j = i % len(self.images)
        return self.images[j].flip(2) if i % 2 else self.images[j], self.labels[j]


def loader_pinned(args):
    """torchvision ResNet-18 fed by a DataLoader with pin_memory=True and 4
    workers; batches go to the GPU with non_blocking copies as uint8 and are
    converted there."""
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None, num_classes=10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    batch = 64
    data = UInt8Images((args.steps + args.warmup) * batch, args.item_ms)
    loader = torch.utils.data.DataLoader(data, batch_size=batch, shuffle=False, num_workers=4,
                                         pin_memory=True, drop_last=True)
    it = iter(loader)

    def step():
        x, y = next(it)
        x = x.cuda(non_blocking=True).float().div_(255)
        y = y.cuda(non_blocking=True)
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        torch.cuda.nvtx.range_push("step")
        loss = step()
        torch.cuda.nvtx.range_pop()
    last = loss.item()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"everyday_loops: loader_pinned item_ms={args.item_ms} workers=4 batch={batch} steps={args.steps} "
          f"{dt * 1e3 / args.steps:.2f} ms/step total={dt * 1e3:.1f} ms loss last={last:.4f}")
    return [last]


DEFAULT_STEPS = {"mlp_item": 300, "gpt2_generate": 4, "loader_pinned": 40}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("loop", choices=sorted(DEFAULT_STEPS))
    parser.add_argument("--steps", type=int, help="steps (gpt2_generate: generate calls); default per loop")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--item-every", type=int, default=1, help="mlp_item: read the loss every N steps")
    parser.add_argument("--slow-step", type=int, default=0,
                        help="mlp_item: sleep --slow-ms inside this step (1-based) in an NVTX range 'stall'")
    parser.add_argument("--slow-ms", type=float, default=20.0, help="mlp_item: the planted stall's length")
    parser.add_argument("--new-tokens", type=int, default=64, help="gpt2_generate: tokens per call")
    parser.add_argument("--item-ms", type=float, default=0.0,
                        help="loader_pinned: host work per item in the workers, in ms")
    args = parser.parse_args()
    if args.steps is None:
        args.steps = DEFAULT_STEPS[args.loop]
    if args.item_every < 1 or args.steps < 1:
        parser.error("--steps and --item-every must be at least 1")
    values = globals()[args.loop](args)
    return 0 if values and all(v == v for v in values) else 3


if __name__ == "__main__":
    sys.exit(main())
