#!/usr/bin/env python3
"""Synthetic rank traces of one data-parallel run, with planted clock
offsets and planted stragglers, for the cross-rank analysis.

    gen_rank_traces.py OUT_DIR --ranks 8 --ops 100000 [--ranks-per-host 8]
        [--max-offset-s 3] [--wall-error-us 2000] [--jitter-ns 2000]
        [--straggler RANK[:FIRST-LAST]]... [--slowdown 1.5] [--seed 1]
        [--kernels-per-step 48] [--jobs N]

Writes OUT_DIR/trace-rank-NNNN.sqlite (streamscope traces) and
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
import sqlite3
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "schema" / "streamscope_schema.sql"
T0 = 5_000_000_000          # true time of step 0
WALL0 = 1_780_000_000 * 10**9  # the run's wall-clock epoch
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
COMPUTE = ["gemm_kernel", "elementwise_add", "layernorm_fwd", "softmax_fwd"]
MIN_NS, MAX_NS, KERNEL_GAP_NS, LAUNCH_NS = 20_000, 60_000, 1_000, 2_000


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
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    con.executescript(SCHEMA.read_text())
    con.execute("BEGIN")
    start_trace = T0 - 1_000_000 + off
    meta = {"schema_version": "1", "trace_format": "streamscope", "collector_version": "gen_rank_traces",
            "capture_end": "normal_exit", "pid": str(1000 + rank), "host": f"node{host:03d}",
            "clock_domain": "cupti-default", "env:RANK": str(rank),
            "start_trace_ns": str(start_trace),
            "start_wall_time_ns": str(WALL0 + T0 - 1_000_000 + p["host_wall_error"][host]),
            "end_trace_ns": str(int(step_start[-1]) + p["period"] + off)}
    con.executemany("INSERT OR REPLACE INTO metadata VALUES (?, ?)", meta.items())
    names = COMPUTE + [NCCL, "step"]
    con.executemany("INSERT INTO string (id, value) VALUES (?, ?)", [(i + 1, n) for i, n in enumerate(names)])
    nccl_id, step_id = len(COMPUTE) + 1, len(COMPUTE) + 2
    con.execute("INSERT INTO device (id, name, compute_major, compute_minor, sm_count, async_engine_count, "
                "concurrent_kernels, global_memory_bytes) VALUES (0, 'Synthetic H200', 9, 0, 132, 3, 1, 150000000000)")
    con.execute("INSERT INTO context VALUES (1, 0, NULL)")
    con.execute("INSERT INTO stream (id, context_id, device_id, kind) VALUES (7, 1, 0, 4), (8, 1, 0, 4)")
    con.execute("INSERT INTO thread VALUES (1, 'main')")
    name_ids = (np.arange(steps * k) % len(COMPUTE) + 1).tolist()
    n_comp = steps * k
    rows = zip(range(1, n_comp + 1), (comp_start.ravel() + off).tolist(), (comp_end.ravel() + off).tolist(),
               name_ids)
    con.executemany("INSERT INTO kernel (id, start_ns, end_ns, device_id, context_id, stream_id, name_id) "
                    "VALUES (?, ?, ?, 0, 1, 7, ?)", rows)
    starts = np.stack([arrive1, arrive2], axis=1).ravel() + off
    ends = np.stack([end1, end2], axis=1).ravel() + off
    rows = zip(range(n_comp + 1, n_comp + 1 + 2 * steps), starts.tolist(), ends.tolist())
    con.executemany("INSERT INTO kernel (id, start_ns, end_ns, device_id, context_id, stream_id, name_id) "
                    f"VALUES (?, ?, ?, 0, 1, 8, {nccl_id})", rows)
    rows = zip(range(1, steps + 1), (step_start + off).tolist(), (step_start + p["e2"] + 50_000 + off).tolist())
    con.executemany("INSERT INTO nvtx_range (id, tid, end_tid, name_id, start_ns, end_ns, is_push_pop, depth) "
                    f"VALUES (?, 1, 1, {step_id}, ?, ?, 1, 0)", rows)
    con.commit()
    con.close()
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
