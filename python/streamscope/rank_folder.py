"""A folder of rank traces, as HTA's ``TraceAnalysis(trace_dir=...)`` takes
one: every trace in the folder, one Trace per process, in rank order.

    ranks = streamscope.open_ranks("traces/")       # [Trace rank 0, rank 1, ...]
    report = streamscope.report_traces(ranks)        # every table with trace_index
    report.ranks                                     # the cross-rank comparison
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional, Union

from .errors import NotATraceError, TraceNotFoundError
from .trace import Trace, open_all

# What a trace file is called: streamscope traces and Nsight Systems
# exports (SQLite), torch.profiler traces (Chrome trace JSON, plain or gzip).
TRACE_PATTERNS = ("*.sqlite", "*.json", "*.json.gz", "*.pt.trace.json", "*.pt.trace.json.gz")


def _natural_key(path: Path):
    """'rank2' before 'rank10'."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def rank_trace_files(folder: Union[str, Path], pattern: Optional[str] = None) -> List[Path]:
    """The trace files in `folder` (TRACE_PATTERNS, or `pattern`), in
    natural name order. Raises TraceNotFoundError when there is none."""
    folder = Path(folder)
    if not folder.exists():
        raise TraceNotFoundError(f"{folder}: no such folder", exit_code=3)
    if not folder.is_dir():
        raise NotATraceError(f"{folder}: is a file, not a folder of traces (streamscope.open reads one trace)")
    found = set()
    for p in (pattern,) if pattern else TRACE_PATTERNS:
        found.update(f for f in folder.glob(p) if f.is_file())
    if not found:
        what = pattern or ", ".join(TRACE_PATTERNS[:3])
        raise TraceNotFoundError(f"{folder}: no trace files ({what}) in this folder", exit_code=3)
    return sorted(found, key=_natural_key)


def open_ranks(folder: Union[str, Path], pattern: Optional[str] = None) -> List[Trace]:
    """Every trace in `folder`, one Trace per process, in rank order: by the
    rank each process recorded (`Trace.rank`, from the RANK environment
    variable), then by file name (natural order: rank2 before rank10).
    Files that are no trace raise the package's error naming the file.
    `pattern` (a glob such as '*.sqlite') picks the files; by default
    streamscope traces, Nsight Systems exports and torch.profiler traces."""
    traces = [t for path in rank_trace_files(folder, pattern) for t in open_all(path)]
    order = {id(t): i for i, t in enumerate(traces)}
    return sorted(traces, key=lambda t: (t.rank is None, t.rank if t.rank is not None else 0, order[id(t)]))
