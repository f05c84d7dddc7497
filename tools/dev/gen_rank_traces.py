#!/usr/bin/env python3
"""Synthetic rank traces of one data-parallel run, with planted clock
offsets and planted stragglers, for the cross-rank analysis.

    gen_rank_traces.py OUT_DIR --ranks 8 --ops 100000 [--ranks-per-host 8]
        [--max-offset-s 3] [--wall-error-us 2000] [--jitter-ns 2000]
        [--straggler RANK[:FIRST-LAST]]... [--slowdown 1.5] [--seed 1]
        [--kernels-per-step 48] [--jobs N]

Writes OUT_DIR/trace-rank-NNNN.sqlite (streamscope traces, through
`streamscope synth`: the CLI from $STREAMSCOPE_BIN, build/bin or PATH) and
OUT_DIR/truth.json (what was planted). The model, in true time T:
- step s starts at T0 + s*P on every rank; it runs K compute kernels on
  stream 7 (20-60 us each, random per rank), and two all-reduces
  (ncclDevKernel_AllReduce_..., stream 8): the first is launched after
  kernel K/2, while compute goes on (communication/compute overlap), the
  second after the last kernel. A collective's kernel starts when the rank
  arrives and ends at the same instant on every rank (step start + E1 or
  E2) plus a per-rank jitter of +-jitter_ns.
- a straggler rank runs its compute kernels `slowdown` times slower in its
  steps, so it arrives last at both all-reduces and the others wait.
- each host's trace clock is T + offset_host (uniform +-max_offset_s); its
  metadata start_wall_time_ns carries a wall-clock error (NTP) of
  +-wall_error_us, start_trace_ns the same instant in the trace clock.
- an NVTX range "step" per step, metadata env:RANK, host, pid.
truth.json: per rank `clock_offset_ns` (trace = true + offset) and
`offset_to_rank0_ns` (what the analyzer should find: the value to add to the
rank's trace times to get rank 0's clock), the stragglers and their steps.
Ranks are independent given the seed, so they are written in parallel.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
T0 = 5_000_000_000          # true time of step 0
WALL0 = 1_780_000_000 * 10**9  # the run's wall-clock epoch
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
COMPUTE = ["gemm_kernel", "elementwise_add", "layernorm_fwd", "softmax_fwd"]
MIN_NS, MAX_NS, KERNEL_GAP_NS, LAUNCH_NS = 20_000, 60_000, 1_000, 2_000


def find_cli() -> Path:
    """The streamscope CLI: the Python package's choice where it is installed,
    else $STREAMSCOPE_BIN, this checkout's build/bin, then PATH."""
    try:
        import streamscope
        return streamscope.find_cli()
    except Exception:  # not installed, or it found no CLI: look here
        pass
    for candidate in (os.environ.get("STREAMSCOPE_BIN"), REPO / "build" / "bin" / "streamscope",
                      shutil.which("streamscope")):
        if candidate and os.access(candidate, os.X_OK) and Path(candidate).is_file():
            return Path(candidate)
    raise FileNotFoundError("no streamscope CLI: set STREAMSCOPE_BIN or build build/bin/streamscope")


def plan(args):
    """Everything that is shared between ranks: hosts' offsets, timing."""
    rng = np.random.default_rng(args.seed)
    hosts = (args.ranks + args.ranks_per_host - 1) // args.ranks_per_host
    max_off = int(args.max_offset_s * 1e9)
    host_offset = rng.integers(-max_off, max_off + 1, size=hosts)
    wall_err = int(args.wall_error_us * 1000)
    host_wall_error = rng.integers(-wall_err, wall_err + 1, size=hosts)
    k = args.kernels_per_step
    steps = max(1, args.ops // (k + 2))
    worst = MAX_NS * args.slowdown + KERNEL_GAP_NS
    e1 = int((k // 2) * worst + LAUNCH_NS + 50_000)
    e2 = int(max(e1, k * worst + LAUNCH_NS) + 100_000)
    period = e2 + 300_000
    stragglers = []
    for spec in args.straggler:
        rank, _, span = spec.partition(":")
        first, last = (0, steps - 1) if not span else map(int, span.split("-"))
        stragglers.append({"rank": int(rank), "first_step": first, "last_step": last})
    return {"hosts": hosts, "host_offset": host_offset.tolist(), "host_wall_error": host_wall_error.tolist(),
            "steps": steps, "k": k, "e1": e1, "e2": e2, "period": period, "stragglers": stragglers}


def write_rank(out_dir: str, rank: int, p: dict, args_dict: dict) -> str:
    rng = np.random.default_rng([args_dict["seed"], rank + 1])
    host = rank // args_dict["ranks_per_host"]
    off = p["host_offset"][host]
    steps, k = p["steps"], p["k"]
    step_start = T0 + np.arange(steps, dtype=np.int64) * p["period"]
    dur = rng.integers(MIN_NS, MAX_NS + 1, size=(steps, k)).astype(np.float64)
    for s in p["stragglers"]:
        if s["rank"] == rank:
            dur[s["first_step"]:s["last_step"] + 1] *= args_dict["slowdown"]
    dur = dur.astype(np.int64)
    comp_end = step_start[:, None] + np.cumsum(dur + KERNEL_GAP_NS, axis=1)
    comp_start = comp_end - dur
    jit = args_dict["jitter_ns"]
    arrive1 = comp_end[:, k // 2 - 1] + LAUNCH_NS
    arrive2 = comp_end[:, k - 1] + LAUNCH_NS
    end1 = step_start + p["e1"] + rng.integers(-jit, jit + 1, size=steps)
    end2 = step_start + p["e2"] + rng.integers(-jit, jit + 1, size=steps)

    path = Path(out_dir) / f"trace-rank-{rank:04d}.sqlite"
    start_trace = T0 - 1_000_000 + off
    meta = {"schema_version": "1", "trace_format": "streamscope", "collector_version": "gen_rank_traces",
            "capture_end": "normal_exit", "pid": str(1000 + rank), "host": f"node{host:03d}",
            "clock_domain": "cupti-default", "env:RANK": str(rank),
            "start_trace_ns": str(start_trace),
            "start_wall_time_ns": str(WALL0 + T0 - 1_000_000 + p["host_wall_error"][host]),
            "end_trace_ns": str(int(step_start[-1]) + p["period"] + off)}
    names = COMPUTE + [NCCL, "step"]
    nccl_id, step_id = len(COMPUTE) + 1, len(COMPUTE) + 2
    spec = {"metadata": meta,
            "string": [{"id": i + 1, "value": n} for i, n in enumerate(names)],
            "device": [{"id": 0, "name": "Synthetic H200", "compute_major": 9, "compute_minor": 0, "sm_count": 132,
                        "async_engine_count": 3, "concurrent_kernels": 1, "global_memory_bytes": 150000000000}],
            "context": [{"id": 1, "device_id": 0}],
            "stream": [{"id": 7, "context_id": 1, "device_id": 0, "kind": 4},
                       {"id": 8, "context_id": 1, "device_id": 0, "kind": 4}],
            "thread": [{"tid": 1, "name": "main"}]}
    name_ids = (np.arange(steps * k) % len(COMPUTE) + 1).tolist()
    n_comp = steps * k
    kernels = [{"id": i, "start_ns": s, "end_ns": e, "device_id": 0, "context_id": 1, "stream_id": 7, "name_id": n}
               for i, s, e, n in zip(range(1, n_comp + 1), (comp_start.ravel() + off).tolist(),
                                     (comp_end.ravel() + off).tolist(), name_ids)]
    starts = np.stack([arrive1, arrive2], axis=1).ravel() + off
    ends = np.stack([end1, end2], axis=1).ravel() + off
    kernels += [{"id": i, "start_ns": s, "end_ns": e, "device_id": 0, "context_id": 1, "stream_id": 8,
                 "name_id": nccl_id}
                for i, s, e in zip(range(n_comp + 1, n_comp + 1 + 2 * steps), starts.tolist(), ends.tolist())]
    spec["kernel"] = kernels
    spec["nvtx_range"] = [{"id": i, "tid": 1, "end_tid": 1, "name_id": step_id, "start_ns": s, "end_ns": e,
                           "is_push_pop": 1, "depth": 0}
                          for i, s, e in zip(range(1, steps + 1), (step_start + off).tolist(),
                                             (step_start + p["e2"] + 50_000 + off).tolist())]
    # The CLI writes the rows (`streamscope synth`), as every writer outside the collector does.
    subprocess.run([str(find_cli()), "synth", "-", "-o", str(path), "--force"], input=json.dumps(spec), text=True,
                   check=True)
    return str(path)


def generate(out_dir, ranks, ops, *, ranks_per_host=8, max_offset_s=3.0, wall_error_us=2000.0, jitter_ns=2000,
             stragglers=(), slowdown=1.5, seed=1, kernels_per_step=48, jobs=1):
    """Writes the traces and truth.json; returns (paths, truth)."""
    args = argparse.Namespace(ranks=ranks, ops=ops, ranks_per_host=ranks_per_host, max_offset_s=max_offset_s,
                              wall_error_us=wall_error_us, jitter_ns=jitter_ns, straggler=list(stragglers),
                              slowdown=slowdown, seed=seed, kernels_per_step=kernels_per_step)
    if kernels_per_step < 2 or kernels_per_step % 2:
        raise ValueError("kernels_per_step must be even and at least 2")
    p = plan(args)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    d = vars(args)
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            paths = list(pool.map(write_rank, [str(out)] * ranks, range(ranks), [p] * ranks, [d] * ranks))
    else:
        paths = [write_rank(str(out), r, p, d) for r in range(ranks)]
    offsets = [p["host_offset"][r // ranks_per_host] for r in range(ranks)]
    truth = {"ranks": [{"rank": r, "host": f"node{r // ranks_per_host:03d}", "clock_offset_ns": offsets[r],
                        "offset_to_rank0_ns": offsets[0] - offsets[r],
                        "wall_error_ns": p["host_wall_error"][r // ranks_per_host]} for r in range(ranks)],
             "steps": p["steps"], "ops_per_rank": p["steps"] * (kernels_per_step + 2),
             "stragglers": p["stragglers"], "slowdown": slowdown, "jitter_ns": jitter_ns}
    (out / "truth.json").write_text(json.dumps(truth, indent=1))
    return paths, truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--ops", type=int, required=True, help="GPU ops per rank (about)")
    ap.add_argument("--ranks-per-host", type=int, default=8)
    ap.add_argument("--max-offset-s", type=float, default=3.0)
    ap.add_argument("--wall-error-us", type=float, default=2000.0)
    ap.add_argument("--jitter-ns", type=int, default=2000)
    ap.add_argument("--straggler", action="append", default=[], help="RANK or RANK:FIRST-LAST (steps, inclusive)")
    ap.add_argument("--slowdown", type=float, default=1.5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernels-per-step", type=int, default=48)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    paths, truth = generate(a.out_dir, a.ranks, a.ops, ranks_per_host=a.ranks_per_host, max_offset_s=a.max_offset_s,
                            wall_error_us=a.wall_error_us, jitter_ns=a.jitter_ns, stragglers=a.straggler,
                            slowdown=a.slowdown, seed=a.seed, kernels_per_step=a.kernels_per_step, jobs=a.jobs)
    print(f"gen_rank_traces: {len(paths)} traces of {truth['ops_per_rank']} ops in {a.out_dir}")


if __name__ == "__main__":
    sys.exit(main())
