"""Many ranks: one rank's compact facts, and the cross-rank analysis of many
rank traces on Dask (`analyze`).

A Dask task will run `rank_facts(path)` on the worker that holds a rank's
trace and return only these facts (a few kB), never the ops: per window
and device the busy, idle and communication/compute overlap figures the
C++ analyzer computed (`report --format csv` tables), the communication
kernels (NCCL kernels: name, collective, ordinal among kernels of that
name, start, end), and the capture's clock facts needed to align hosts.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import pandas as pd

from ._rank_figures import RankFacts, collective_of, facts_of_trace  # noqa: F401 (public here)

def rank_facts(trace, window=None, *, nvtx: Optional[str] = None, nvtx_instance: Optional[int] = None,
               step_range: Optional[str] = None) -> RankFacts:
    """One rank's facts for the window. `trace`: a Trace or a path.
    `step_range`: the NVTX range that marks a training step (its
    instances are listed in `steps`)."""
    if isinstance(trace, (str, os.PathLike)):
        from .trace import open as open_trace
        trace = open_trace(trace)
    return facts_of_trace(trace, window, nvtx=nvtx, nvtx_instance=nvtx_instance, step_range=step_range)


# ---------------------------------------------------------------------------
# Many ranks on Dask: one task per trace runs `streamscope facts`
# where the trace is and returns only its facts (compressed JSON); the merge
# is the C++ `streamscope merge-facts`, the same code `streamscope report
# A B ...` runs for its cross-rank section, so both give the same figures.

def _facts_task(path: str, args: List[str], cli: Optional[str]) -> bytes:
    """Runs on a worker: `streamscope facts PATH ARGS` -> zlib-compressed JSON."""
    import subprocess
    import zlib
    from ._cli import cli_error, find_cli
    argv = [cli or str(find_cli()), "facts", path, *args]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise cli_error(f"facts {path}", proc.returncode, proc.stderr.decode("utf-8", "replace").strip())
    return zlib.compress(proc.stdout, 1)


class CrossRank:
    """The cross-rank figures of many rank traces (`merge-facts` JSON,
    the object `report --format json` writes as combined.ranks)."""

    def __init__(self, doc: Dict[str, Any], facts_bytes: int, paths: List[str]):
        self.json = doc
        self.facts_bytes = facts_bytes  # compressed facts that travelled to the client
        self.paths = paths

    @property
    def comparable(self) -> bool:
        return bool(self.json["comparable"])

    @property
    def notes(self) -> List[str]:
        return list(self.json["notes"])

    @property
    def alignment(self) -> Dict[str, Any]:
        """method, reference_rank, hosts, residual_median_ns, residual_max_ns."""
        return dict(self.json["alignment"])

    @property
    def ranks(self) -> pd.DataFrame:
        """Per rank: busy/idle, comm/compute/overlap, waited_ns, caused_wait_ns,
        last_arrivals, clock offsets, alignment residual, straggler_steps."""
        frame = pd.DataFrame(self.json["ranks"])
        for c in frame.columns:
            if c.endswith("_ns") or c in ("rank", "pid", "collectives", "last_arrivals", "straggler_steps"):
                frame[c] = frame[c].astype("Int64")
        return frame

    @property
    def skews(self) -> pd.DataFrame:
        return pd.DataFrame(self.json["worst_skews"],
                            columns=["name", "ordinal", "first_rank", "last_rank", "first_start_ns",
                                     "last_start_ns", "skew_ns"])

    @property
    def steps(self) -> pd.DataFrame:
        """Per step (window index on the reference rank) its straggler."""
        return pd.DataFrame(self.json["steps"],
                            columns=["step", "straggler_rank", "caused_wait_ns", "max_skew_ns", "collectives"])

    @property
    def stragglers(self) -> pd.DataFrame:
        """Ranks that kept others waiting, most steps (then most waiting) first."""
        r = self.ranks
        r = r[(r["caused_wait_ns"] > 0) | (r["straggler_steps"] > 0)]
        return r.sort_values(["straggler_steps", "caused_wait_ns"], ascending=False)[
            ["rank", "straggler_steps", "caused_wait_ns", "last_arrivals", "host"]].reset_index(drop=True)

    def __repr__(self):
        a = self.alignment
        return (f"<CrossRank {len(self.json['ranks'])} ranks, {self.json['matched_collectives']} collectives, "
                f"clocks: {a['method']} (residual max {a['residual_max_ns']} ns)>")


def merge_facts(facts: List[bytes], *, top: int = 10, cli: Optional[str] = None) -> Dict[str, Any]:
    """`streamscope merge-facts` over facts documents (JSON bytes, plain or
    zlib-compressed), in rank-list order; returns its "ranks" object."""
    import json
    import tempfile
    import zlib
    from ._cli import run_cli
    with tempfile.TemporaryDirectory(prefix="streamscope-facts-") as tmp:
        files = []
        for i, blob in enumerate(facts):
            if blob[:1] != b"{":
                blob = zlib.decompress(blob)
            f = Path(tmp) / f"facts-{i:06d}.json"
            f.write_bytes(blob)
            files.append(str(f))
        args = ["merge-facts", *files, "--format", "json", "--top", str(int(top))]
        out = run_cli(args).stdout if cli is None else _run(cli, args)
    return json.loads(out)["ranks"]


def _run(cli: str, args: List[str]) -> bytes:
    import subprocess
    from ._cli import cli_error
    proc = subprocess.run([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise cli_error(" ".join(args), proc.returncode, proc.stderr.decode("utf-8", "replace").strip())
    return proc.stdout


def analyze(paths, client=None, *, window=None, nvtx: Optional[str] = None, nvtx_instance: Optional[int] = None,
            absolute: bool = False, top: int = 10, cli: Optional[str] = None) -> CrossRank:
    """Cross-rank analysis of many rank traces (paths, or the Traces of
    streamscope.open_ranks(folder)).

    With a dask.distributed `client`, one task per trace runs `streamscope
    facts` on a worker (which must see the file and the CLI: `cli`, else
    the worker's find_cli(): its installed package's own); only the facts (a few kB to a few
    MB per rank, compressed) travel to the client, which merges them with
    `streamscope merge-facts`. Without a client, the facts are computed
    here, one process per CPU. `nvtx="step"` makes every instance of the
    range a window, and a step: the merge then names a straggler per step.
    The figures equal those of `streamscope report --format json PATHS` with
    the same window (combined.ranks)."""
    from .window import window_args
    if isinstance(paths, (str, Path)):
        paths = [paths]
    # Trace objects (streamscope.open_ranks(folder)) stand for their file.
    paths = [str(getattr(p, "path", p)) for p in paths]
    args = window_args(window, nvtx=nvtx, nvtx_instance=nvtx_instance, absolute=absolute)
    if client is None:
        import os
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            facts = list(pool.map(lambda p: _facts_task(p, args, cli), paths))
    else:
        futures = [client.submit(_facts_task, p, args, cli, pure=False) for p in paths]
        facts = client.gather(futures)
    doc = merge_facts(facts, top=top, cli=cli)
    return CrossRank(doc, sum(len(f) for f in facts), paths)
