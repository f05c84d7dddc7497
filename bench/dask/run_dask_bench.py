#!/usr/bin/env python3
"""Scale benchmark of the many-rank path on Dask.

    run_dask_bench.py [--ranks 16 64 256] [--ops 100000] [--workers 2]
                      [--data /tmp/streamscope-dask-bench] [--out bench/results/dask.json]

For each rank count: synthetic rank traces (tools/dev/gen_rank_traces.py:
planted clock offsets up to 3 s and one straggler), a fresh LocalCluster of
`workers` worker processes with one thread each, then
streamscope.ranks.analyze(paths, client). Measured: wall time of the facts
phase (tasks on the workers) and of the merge (merge-facts on the client),
peak memory of each worker process (getrusage on the worker), of the
largest `streamscope facts` process and of `merge-facts` (/usr/bin/time),
bytes the workers sent and received (their transfer counters: what they
sent is the facts, to the client; what they received from other workers)
and the compressed facts the client gathered, the merge's peak memory, and whether the
alignment error (against the planted offsets) stays within 10 us and the
planted straggler is named. The CLI: $STREAMSCOPE_BIN or build/bin.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "dev"))
import gen_rank_traces  # noqa: E402


def worker_stats(dask_worker=None):
    import resource as r
    out = {"self_peak_mib": r.getrusage(r.RUSAGE_SELF).ru_maxrss / 1024}
    # Sent: every byte the worker served (to the client or to a worker).
    # Received from other workers: its incoming transfer log (every byte
    # moved between workers is received by one).
    out["sent"] = getattr(dask_worker, "transfer_outgoing_bytes_total", None)
    log = getattr(dask_worker, "transfer_incoming_log", None)
    out["received"] = sum(e["total"] for e in log) if log is not None else None
    return out


def facts_with_peak(path, cli):
    """The analysis task (streamscope.ranks._facts_task) under /usr/bin/time,
    which gives the CLI's own peak RSS: getrusage(RUSAGE_CHILDREN) on the
    worker would count the forked Python worker's pages too."""
    import subprocess as sp
    import zlib
    proc = sp.run(["/usr/bin/time", "-f", "%M", cli, "facts", path], stdout=sp.PIPE, stderr=sp.PIPE, check=True)
    return zlib.compress(proc.stdout, 1), int(proc.stderr.decode().strip().splitlines()[-1])


def merge_with_peak(facts, cli, tmp):
    import zlib
    files = []
    for i, blob in enumerate(facts):
        f = Path(tmp) / f"facts-{i:06d}.json"
        f.write_bytes(zlib.decompress(blob))
        files.append(str(f))
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", cli, "merge-facts", *files, "--format", "json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return json.loads(proc.stdout)["ranks"], int(proc.stderr.decode().strip().splitlines()[-1])


def run_one(ranks, ops, workers, data, cli):
    from dask.distributed import Client, LocalCluster
    import streamscope.ranks as sr
    folder = Path(data) / f"r{ranks}"
    t0 = time.perf_counter()
    paths, truth = gen_rank_traces.generate(folder, ranks, ops, ranks_per_host=8, max_offset_s=3.0,
                                            stragglers=[str(ranks // 3)], jobs=workers)
    gen_s = time.perf_counter() - t0
    trace_mib = sum(os.path.getsize(p) for p in paths) / 2**20
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        t0 = time.perf_counter()
        futures = [client.submit(facts_with_peak, str(p), cli, pure=False) for p in paths]
        gathered = client.gather(futures)
        facts_s = time.perf_counter() - t0
        del futures
        facts = [f for f, _ in gathered]
        cli_peak_kib = max(k for _, k in gathered)
        t0 = time.perf_counter()
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            doc, merge_peak_kib = merge_with_peak(facts, cli, tmp)
        merge_s = time.perf_counter() - t0
        stats = client.run(worker_stats)
    result = sr.CrossRank(doc, sum(len(f) for f in facts), [str(p) for p in paths])
    r = result.ranks.set_index("rank")
    err = max(abs(int(r.loc[t["rank"], "clock_offset_ns"]) - t["offset_to_rank0_ns"]) for t in truth["ranks"])
    named = int(result.stragglers.iloc[0]["rank"]) if len(result.stragglers) else None
    return {"ranks": ranks, "ops_per_rank": truth["ops_per_rank"], "trace_mib_total": round(trace_mib, 1),
            "generate_s": round(gen_s, 1), "facts_s": round(facts_s, 2), "merge_s": round(merge_s, 2),
            "wall_s": round(facts_s + merge_s, 2),
            "workers": [{"worker_process_peak_mib": round(s["self_peak_mib"], 1),
                         "bytes_sent": s["sent"], "bytes_received_from_workers": s["received"]}
                        for s in stats.values()],
            "facts_cli_peak_mib_max": round(cli_peak_kib / 1024, 1),
            "facts_bytes_to_client": result.facts_bytes,
            "merge_cli_peak_mib": round(merge_peak_kib / 1024, 1),
            "alignment_error_max_ns": err, "residual_max_ns": result.alignment["residual_max_ns"],
            "method": result.alignment["method"], "planted_straggler": ranks // 3, "named_straggler": named,
            "matched_collectives": result.json["matched_collectives"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, nargs="+", default=[16, 64, 256])
    ap.add_argument("--ops", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--data", default="/tmp/streamscope-dask-bench")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "dask.json"))
    ap.add_argument("--keep", action="store_true", help="keep the generated traces")
    a = ap.parse_args()
    cli = os.environ.get("STREAMSCOPE_BIN") or str(REPO / "build" / "bin" / "streamscope")
    version = subprocess.run([cli, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    import dask
    import distributed
    runs = []
    for n in a.ranks:
        row = run_one(n, a.ops, a.workers, a.data, cli)
        print(json.dumps(row), flush=True)
        runs.append(row)
        if not a.keep:
            subprocess.run(["rm", "-rf", str(Path(a.data) / f"r{n}")], check=True)
    doc = {"date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "machine": platform.node(),
           "cpus": os.cpu_count(), "load_average": os.getloadavg(), "python": platform.python_version(),
           "dask": dask.__version__, "distributed": distributed.__version__, "streamscope": version,
           "command": " ".join(sys.argv), "runs": runs}
    Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
