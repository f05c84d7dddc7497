"""One rank's compact facts, computed from an open Trace.

The figures behind `streamscope.ranks.rank_facts` and `Trace.rank_facts`.
This module imports neither of those modules, so that `trace` and `ranks`
can both use it without importing each other.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

import pandas as pd

_COLLECTIVE = re.compile(r"nccl(?:Dev)?Kernel_([A-Za-z]+)", re.IGNORECASE)

_COMM_SQL = """
SELECT k.id AS op_id, s.value AS name, k.device_id, k.stream_id, k.start_ns, k.end_ns
FROM kernel k JOIN string s ON s.id = k.name_id
WHERE s.value LIKE '%nccl%'
ORDER BY k.start_ns, k.id
"""


def collective_of(name: str) -> Optional[str]:
    """'AllReduce' for 'ncclDevKernel_AllReduce_Sum_f32_RING_LL', else None."""
    m = _COLLECTIVE.search(name or "")
    return m.group(1) if m else None


@dataclass
class RankFacts:
    """What one rank contributes to a cross-rank analysis."""
    path: str
    rank: Optional[int]           # metadata env:RANK (None: not recorded)
    pid: Optional[int]
    host: Optional[str]
    clock_domain: Optional[str]
    start_wall_time_ns: Optional[int]  # CLOCK_REALTIME at capture start
    start_trace_ns: Optional[int]      # the same instant in the trace clock
    windows: pd.DataFrame         # per window and device: busy/idle/overlap figures
    comm_kernels: pd.DataFrame    # op_id, name, collective, ordinal, device_id, stream_id, start_ns, end_ns
    steps: pd.DataFrame = field(default_factory=pd.DataFrame)  # instance, start_ns, end_ns of the step range

    def to_dict(self) -> Dict[str, Any]:
        """Plain Python (for msgpack/pickle between workers)."""
        d = {k: getattr(self, k) for k in ("path", "rank", "pid", "host", "clock_domain",
                                           "start_wall_time_ns", "start_trace_ns")}
        for k in ("windows", "comm_kernels", "steps"):
            d[k] = getattr(self, k).astype(object).where(getattr(self, k).notna(), None).to_dict("records")
        return d


def _int(v) -> Optional[int]:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def facts_of_trace(trace, window=None, *, nvtx: Optional[str] = None, nvtx_instance: Optional[int] = None,
                   step_range: Optional[str] = None) -> RankFacts:
    """One rank's facts for the window, from an open Trace (see
    streamscope.ranks.rank_facts)."""
    report = trace.report(window, nvtx=nvtx, nvtx_instance=nvtx_instance)
    win = report.windows[["window_index", "label", "start_ns", "end_ns", "length_ns"]]
    idle = report.idle_devices[["window_index", "device_id", "window_ns", "busy_ns", "idle_ns", "gap_count"]]
    figures = win.merge(idle, on="window_index", how="left")
    comm = report.communication
    comm_cols = ["comm_ns", "compute_ns", "overlapped_ns", "exposed_comm_ns", "hidden_share"]
    if not comm.empty:
        figures = figures.merge(comm[["window_index", "device_id", *comm_cols]],
                                on=["window_index", "device_id"], how="left")
    else:
        for c in comm_cols:
            figures[c] = pd.array([pd.NA] * len(figures), dtype="Float64" if c == "hidden_share" else "Int64")
    copies = report.overlap_categories
    copies = copies[copies["category"] == "any_copy"][["window_index", "device_id", "time_ns", "exposed_ns"]]
    figures = figures.merge(copies.rename(columns={"time_ns": "copy_ns", "exposed_ns": "exposed_copy_ns"}),
                            on=["window_index", "device_id"], how="left")

    kernels = trace.sql(_COMM_SQL)
    kernels.insert(2, "collective", kernels["name"].map(collective_of).astype("string"))
    # The k-th kernel of one name is the k-th collective of that name on
    # every rank (analyzer/README.md "Several processes").
    kernels.insert(3, "ordinal", kernels.groupby("name").cumcount().astype("Int64"))

    steps = pd.DataFrame(columns=["instance", "start_ns", "end_ns"])
    if step_range is not None:
        r = trace.nvtx_ranges
        r = r[r["name"] == step_range].reset_index(drop=True)
        steps = pd.DataFrame({"instance": pd.array(range(1, len(r) + 1), dtype="Int64"),
                              "start_ns": r["start_ns"], "end_ns": r["end_ns"]})

    meta = trace.metadata
    return RankFacts(path=str(trace.source_path), rank=_int(meta.get("env:RANK")), pid=trace.pid,
                     host=meta.get("host"), clock_domain=meta.get("clock_domain"),
                     start_wall_time_ns=_int(meta.get("start_wall_time_ns")),
                     start_trace_ns=_int(meta.get("start_trace_ns")),
                     windows=figures.reset_index(drop=True), comm_kernels=kernels, steps=steps)
