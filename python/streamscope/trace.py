"""A trace as pandas DataFrames, read straight from the SQLite file.

Units: every time is an integer number of nanoseconds in the trace clock
(CUPTI's; the same clock for CPU and GPU records); durations are ``*_ns``
integers, sizes ``bytes``. Integer columns use pandas' nullable ``Int64``
so that a missing value (an NVTX range still open at capture end, an op
without a stream) stays exact instead of turning the column into floats:
trace-clock times are above 2**53 and would lose nanoseconds as floats.

Traces that are not streamscope traces (an Nsight Systems SQLite export; a
torch.profiler trace once the CLI imports them) are converted first with
``streamscope convert IN -o TMP`` into a temporary streamscope trace, which
lives as long as the Trace object.
"""
from __future__ import annotations

import builtins
import sqlite3
import tempfile
import urllib.parse
from functools import cached_property
from pathlib import Path
from typing import Dict, List, Optional, Union

import pandas as pd

from . import _cli
from .errors import NotATraceError, StreamscopeError, TraceNotFoundError, UsageError

PathLike = Union[str, Path]

SQLITE_MAGIC = b"SQLite format 3\x00"
# Tables every streamscope trace has (schema/streamscope_schema.sql).
REQUIRED_TABLES = ("metadata", "string", "device", "stream", "kernel", "memcpy", "memset",
                   "api_call", "nvtx_range")

# The analyzer's op categories (analyzer/README.md "Overlap"): the same
# names as the report's tables, so ops and results join on them.
_CATEGORY_OF_COPY_KIND = ("CASE m.copy_kind WHEN 1 THEN 'H2D' WHEN 2 THEN 'D2H' WHEN 8 THEN 'D2D' "
                          "WHEN 10 THEN 'P2P' WHEN 11 THEN 'H2D' WHEN 12 THEN 'D2H' WHEN 13 THEN 'D2D' "
                          "ELSE 'other_copy' END")
# Copy kinds by value, as schema version 2 names them (version 1 traces call
# them HtoD, DtoH, ... in their enum_copy_kind table: the values are the same).
_COPY_KIND_NAME = ("CASE m.copy_kind WHEN 0 THEN 'unknown' WHEN 1 THEN 'H2D' WHEN 2 THEN 'D2H' "
                   "WHEN 3 THEN 'H2A' WHEN 4 THEN 'A2H' WHEN 5 THEN 'A2A' WHEN 6 THEN 'A2D' "
                   "WHEN 7 THEN 'D2A' WHEN 8 THEN 'D2D' WHEN 9 THEN 'H2H' WHEN 10 THEN 'P2P' "
                   "WHEN 11 THEN 'uvm_H2D' WHEN 12 THEN 'uvm_D2H' WHEN 13 THEN 'uvm_D2D' "
                   "ELSE 'unknown' END")

_OPS_SQL = f"""
SELECT 'kernel' AS op_table, k.id AS op_id, 'compute' AS category, 'kernel' AS kind,
       k.start_ns, k.end_ns, k.end_ns - k.start_ns AS duration_ns,
       k.device_id, k.context_id, k.stream_id, k.correlation_id,
       s.value AS name, NULL AS bytes, NULL AS src_kind, NULL AS dst_kind,
       k.graph_id, k.graph_node_id
FROM kernel k JOIN string s ON s.id = k.name_id
UNION ALL
SELECT 'memcpy', m.id, {_CATEGORY_OF_COPY_KIND}, {_COPY_KIND_NAME},
       m.start_ns, m.end_ns, m.end_ns - m.start_ns,
       m.device_id, m.context_id, m.stream_id, m.correlation_id,
       NULL, m.bytes, sk.name, dk.name, m.graph_id, m.graph_node_id
FROM memcpy m
LEFT JOIN enum_memory_kind sk ON sk.value = m.src_kind
LEFT JOIN enum_memory_kind dk ON dk.value = m.dst_kind
UNION ALL
SELECT 'memset', ms.id, 'memset', 'memset',
       ms.start_ns, ms.end_ns, ms.end_ns - ms.start_ns,
       ms.device_id, ms.context_id, ms.stream_id, ms.correlation_id,
       NULL, ms.bytes, NULL, mk.name, ms.graph_id, ms.graph_node_id
FROM memset ms LEFT JOIN enum_memory_kind mk ON mk.value = ms.memory_kind
ORDER BY start_ns, op_table, op_id
"""

_API_SQL = """
SELECT a.id AS api_id, s.value AS name,
       CASE a.domain WHEN 1 THEN 'runtime' WHEN 2 THEN 'driver' ELSE 'unknown' END AS domain,
       a.cbid, a.tid, a.start_ns, a.end_ns, a.end_ns - a.start_ns AS duration_ns,
       a.correlation_id, a.return_value
FROM api_call a JOIN string s ON s.id = a.name_id
ORDER BY a.start_ns, a.id
"""

_NVTX_SQL = """
SELECT r.id AS nvtx_range_id, s.value AS name, d.value AS domain, r.tid, r.end_tid,
       r.start_ns, r.end_ns, r.end_ns - r.start_ns AS duration_ns,
       r.is_push_pop, r.depth, r.color, r.category
FROM nvtx_range r JOIN string s ON s.id = r.name_id
LEFT JOIN string d ON d.id = r.domain_id
ORDER BY r.start_ns, r.id
"""

_MARKS_SQL = """
SELECT m.id AS nvtx_mark_id, s.value AS name, d.value AS domain, m.tid, m.ts_ns
FROM nvtx_mark m JOIN string s ON s.id = m.name_id
LEFT JOIN string d ON d.id = m.domain_id
ORDER BY m.ts_ns, m.id
"""

_STREAMS_SQL = """
SELECT st.id AS stream_id, st.device_id, st.context_id, COALESCE(k.name, 'unknown') AS kind,
       st.priority, st.created_tid
FROM stream st LEFT JOIN enum_stream_kind k ON k.value = st.kind
ORDER BY st.device_id, st.id
"""

_DEVICES_SQL = """
SELECT id AS device_id, name, uuid, compute_major, compute_minor, sm_count,
       async_engine_count AS copy_engines, concurrent_kernels, global_memory_bytes,
       global_memory_bandwidth_kbps, global_memory_clock_khz, max_threads_per_block,
       max_shared_memory_per_block, pci_bus_id, pci_device_id
FROM device ORDER BY id
"""

_SYNCS_SQL = """
SELECT y.id AS sync_id, COALESCE(k.name, 'unknown') AS kind, y.start_ns, y.end_ns,
       y.end_ns - y.start_ns AS duration_ns, y.context_id, y.stream_id, y.event_id,
       y.correlation_id, y.return_value
FROM sync y LEFT JOIN enum_sync_kind k ON k.value = y.kind
ORDER BY y.start_ns, y.id
"""


def _connect(path: Path) -> sqlite3.Connection:
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


def _table_names(path: Path) -> Optional[List[str]]:
    """Table names of an SQLite file, or None if it is not one."""
    with builtins.open(path, "rb") as f:
        if f.read(16) != SQLITE_MAGIC:
            return None
    con = _connect(path)
    try:
        return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
    except sqlite3.DatabaseError:
        return None
    finally:
        con.close()


def is_streamscope_trace(path: PathLike) -> bool:
    """True for a streamscope trace (recorded or converted): an SQLite file
    with the schema's tables. Nsight exports, JSON traces and folders are
    False."""
    if not Path(path).is_file():
        return False
    names = _table_names(Path(path))
    return names is not None and all(t in names for t in REQUIRED_TABLES)


def _convert(path: Path) -> "tuple[tempfile.TemporaryDirectory, List[Path]]":
    tmp = tempfile.TemporaryDirectory(prefix="streamscope-")
    out = Path(tmp.name) / "trace-%p.sqlite"
    _cli.run_cli(["convert", str(path), "-o", str(out)])
    converted = sorted(Path(tmp.name).glob("trace-*.sqlite"))
    if not converted:
        tmp.cleanup()
        raise StreamscopeError(f"{path}: `streamscope convert` wrote no trace")
    return tmp, converted


def check_trace_path(path: Path) -> None:
    """Raises the package's error, in one line, for a path that cannot be a
    trace file: missing (TraceNotFoundError) or a folder (NotATraceError)."""
    if not path.exists():
        raise TraceNotFoundError(f"{path}: no such trace file", exit_code=3)
    if path.is_dir():
        raise NotATraceError(f"{path}: is a folder, not a trace file (streamscope.open_ranks reads a folder "
                             "of rank traces)")


def open_all(path: PathLike) -> List["Trace"]:
    """Every process of a trace file, one Trace each (an Nsight Systems
    export may hold several; a streamscope trace holds one)."""
    path = Path(path)
    check_trace_path(path)
    if is_streamscope_trace(path):
        return [Trace(path)]
    tmp, converted = _convert(path)
    return [Trace(p, source_path=path, _tmp=tmp) for p in converted]


def open(path: PathLike, pid: Optional[int] = None) -> "Trace":  # noqa: A001 (streamscope.open)
    """Opens a trace: a streamscope trace as it is; an Nsight Systems export
    (or a torch.profiler trace, once the CLI imports them) through
    ``streamscope convert`` into a temporary streamscope trace. `pid` picks
    one process of a file that holds several."""
    traces = open_all(path)
    if pid is not None:
        for t in traces:
            if t.pid == pid:
                return t
        raise UsageError(f"{path}: no process {pid}; it holds {sorted(t.pid for t in traces)}")
    if len(traces) > 1:
        raise UsageError(f"{path}: holds {len(traces)} processes ({sorted(t.pid for t in traces)}); "
                         "pick one with streamscope.open(path, pid=...) or use streamscope.open_all(path)")
    return traces[0]


class Trace:
    """One process' trace. The DataFrame properties are read on first use
    and cached; `path` is the streamscope trace that is read (a temporary
    conversion for other formats), `source_path` the file you opened."""

    def __init__(self, path: PathLike, source_path: Optional[PathLike] = None, _tmp=None):
        self.path = Path(path)
        self.source_path = Path(source_path) if source_path is not None else self.path
        self._tmp = _tmp  # keeps a converted trace alive as long as this object
        check_trace_path(self.path)
        names = _table_names(self.path)
        if names is None:
            raise NotATraceError(f"{self.path}: not an SQLite file")
        missing = [t for t in REQUIRED_TABLES if t not in names]
        if missing:
            raise NotATraceError(f"{self.path}: not a streamscope trace (missing tables: {', '.join(missing)})")
        self._tables = set(names)

    def __repr__(self) -> str:
        src = "" if self.source_path == self.path else f" from {self.source_path}"
        return f"<streamscope.Trace {self.path}{src} pid={self.pid}>"

    def sql(self, query: str, params=(), int_columns=()) -> pd.DataFrame:
        """Any SQL query on the trace (read-only), as a DataFrame with
        nullable dtypes; `int_columns` are made Int64 even when every value
        is NULL (so that the dtype does not depend on the data)."""
        con = _connect(self.path)
        try:
            frame = pd.read_sql_query(query, con, params=params, dtype_backend="numpy_nullable")
        finally:
            con.close()
        for c in int_columns:
            if c in frame.columns and frame[c].dtype != "Int64":
                frame[c] = frame[c].astype("Int64")
        return frame

    # Facts about the capture --------------------------------------------

    @cached_property
    def metadata(self) -> Dict[str, str]:
        """metadata table as a dict (schema/streamscope_schema.sql lists the keys)."""
        con = _connect(self.path)
        try:
            return {k: v for k, v in con.execute("SELECT key, value FROM metadata")}
        finally:
            con.close()

    @property
    def pid(self) -> Optional[int]:
        v = self.metadata.get("pid")
        try:
            return int(v) if v is not None else None
        except ValueError:
            return None

    @property
    def rank(self) -> Optional[int]:
        """The rank the process recorded (metadata env:RANK), else None."""
        v = self.metadata.get("env:RANK")
        try:
            return int(v) if v is not None else None
        except ValueError:
            return None

    @property
    def format(self) -> str:
        """'streamscope', 'converted-nsys', ...: metadata trace_format."""
        return self.metadata.get("trace_format", "unknown")

    @cached_property
    def collector_stats(self) -> Dict[str, int]:
        if "collector_stat" not in self._tables:
            return {}
        con = _connect(self.path)
        try:
            return {k: v for k, v in con.execute("SELECT key, value FROM collector_stat")}
        finally:
            con.close()

    # Records ---------------------------------------------------------------

    @cached_property
    def ops(self) -> pd.DataFrame:
        """Every GPU op (kernels, copies, memsets), in start order. Columns:
        op_table ('kernel'/'memcpy'/'memset') and op_id (the row in that
        table, as the report's op references), category (the analyzer's:
        compute, H2D, D2H, D2D, P2P, memset, other_copy), kind (the schema's
        copy kind: H2D, D2H, ...; 'kernel', 'memset'), start_ns, end_ns,
        duration_ns, device_id, context_id, stream_id, correlation_id (joins
        api_calls), name (kernels), bytes (copies, memsets), src_kind and
        dst_kind (memory kinds: pageable, pinned, device, ...), graph_id,
        graph_node_id."""
        return self.sql(_OPS_SQL, int_columns=("op_id", "start_ns", "end_ns", "duration_ns", "device_id", "context_id", "stream_id", "correlation_id", "bytes", "graph_id", "graph_node_id"))

    @cached_property
    def api_calls(self) -> pd.DataFrame:
        """CUDA runtime and driver calls: api_id, name, domain ('runtime'/
        'driver'), cbid, tid, start_ns, end_ns, duration_ns, correlation_id,
        return_value."""
        return self.sql(_API_SQL, int_columns=("api_id", "cbid", "tid", "start_ns", "end_ns", "duration_ns", "correlation_id", "return_value"))

    @cached_property
    def nvtx_ranges(self) -> pd.DataFrame:
        """NVTX ranges: nvtx_range_id, name, domain (NA = default), tid,
        end_tid, start_ns, end_ns (NA: still open at capture end),
        duration_ns, is_push_pop, depth, color, category."""
        return self.sql(_NVTX_SQL, int_columns=("nvtx_range_id", "tid", "end_tid", "start_ns", "end_ns", "duration_ns", "is_push_pop", "depth", "color", "category"))

    @cached_property
    def nvtx_marks(self) -> pd.DataFrame:
        """NVTX marks: nvtx_mark_id, name, domain, tid, ts_ns."""
        return self.sql(_MARKS_SQL, int_columns=("nvtx_mark_id", "tid", "ts_ns"))

    @cached_property
    def streams(self) -> pd.DataFrame:
        """Streams: stream_id, device_id, context_id, kind ('legacy_default',
        'per_thread_default', 'blocking', 'non_blocking', 'unknown'),
        priority, created_tid."""
        return self.sql(_STREAMS_SQL, int_columns=("stream_id", "device_id", "context_id", "priority", "created_tid"))

    @cached_property
    def devices(self) -> pd.DataFrame:
        """GPUs: device_id, name, uuid, compute_major, compute_minor,
        sm_count, copy_engines (async engine count), concurrent_kernels,
        global_memory_bytes, and the remaining device table columns."""
        return self.sql(_DEVICES_SQL, int_columns=("device_id", "compute_major", "compute_minor", "sm_count", "copy_engines", "concurrent_kernels", "global_memory_bytes", "global_memory_bandwidth_kbps", "global_memory_clock_khz", "max_threads_per_block", "max_shared_memory_per_block", "pci_bus_id", "pci_device_id"))

    @cached_property
    def syncs(self) -> pd.DataFrame:
        """Explicit synchronizations: sync_id, kind, start_ns, end_ns,
        duration_ns, context_id, stream_id, event_id, correlation_id,
        return_value."""
        if "sync" not in self._tables:
            return pd.DataFrame()
        return self.sql(_SYNCS_SQL, int_columns=("sync_id", "start_ns", "end_ns", "duration_ns", "context_id", "stream_id", "event_id", "correlation_id", "return_value"))

    # Analyses (C++ analyzer through the CLI) ---------------------------------

    def report(self, window=None, *, nvtx: Optional[str] = None, nvtx_instance: Optional[int] = None,
               absolute: bool = False, gap_threshold_us: Optional[float] = None,
               top: Optional[int] = None, sections=None, clip: bool = False):
        """Every analysis of `streamscope report` as DataFrames: see
        streamscope.report.Report. The window: 'whole', (start_ns, end_ns)
        from the trace start (absolute=True: trace-clock ns), or
        nvtx='name' [nvtx_instance=k]; clip=True cuts a (start_ns, end_ns)
        window reaching outside the trace to it (else WindowError, naming
        the trace's bounds). sections: report section names
        (e.g. ['overlap', 'idle-gaps']): only those analyses are computed
        and only their tables written (much faster on large traces)."""
        from .report import Report
        return Report.run([self.path], window=window, nvtx=nvtx, nvtx_instance=nvtx_instance,
                          absolute=absolute, gap_threshold_us=gap_threshold_us, top=top, keep=self,
                          sections=sections, clip=clip)

    def instances(self, window=None, **window_kwargs) -> pd.DataFrame:
        """The per-step breakdown: one row per instance of the run's
        steps (torch.profiler's ProfilerStep#N ranges, else the repeated
        NVTX range such as a training step, or kernel sequence) in the
        window (default: the steady state), with window_index, instance
        (1-based), start_ns, end_ns, duration_ns, busy_ns, idle_ns,
        busy_share, compute_ns, copy_ns, overlap_ns, overlap_possible_ns,
        nvtx_range_id, top_cause (the largest idle cause: gap causes'
        names), top_api_name / top_nvtx_name (its call or NVTX range),
        top_cause_ns and slow (1 when the instance lasted more than 1.5x the
        median). Empty without repeated instances. Only this analysis runs
        (report section 'instances')."""
        return self.report(window, sections=["instances"], **window_kwargs).instances

    def diagnose(self, window=None, *, nvtx: Optional[str] = None, nvtx_instance: Optional[int] = None,
                 absolute: bool = False, clip: bool = False):
        """`streamscope diagnose`: why overlap is missing, as a Diagnosis
        (findings DataFrame, one row per finding with its impact and remedy).
        window=None is the commands' default window (the steady state, else
        the span of GPU activity)."""
        from .report import Diagnosis
        return Diagnosis.run([self.path], window=window, nvtx=nvtx, nvtx_instance=nvtx_instance,
                             absolute=absolute, clip=clip)

    def tables(self, window=None, *, format: str = "csv", out_dir: Optional[PathLike] = None,  # noqa: A002
               force: bool = False, **window_kwargs) -> Dict[str, Path]:
        """Writes every analysis table to out_dir (CSV or Parquet); see
        streamscope.tables."""
        from .table_files import tables
        return tables(self.path, window=window, format=format, out_dir=out_dir, force=force, **window_kwargs)

    def plot_timeline(self, window=None, ax=None, **kwargs):
        """Timeline figure (matplotlib): see streamscope.plot.plot_timeline."""
        from .plot import plot_timeline
        return plot_timeline(self, window=window, ax=ax, **kwargs)

    def rank_facts(self, window=None, **kwargs):
        """This rank's compact facts for a cross-rank merge: see
        streamscope.ranks.rank_facts."""
        from ._rank_figures import facts_of_trace
        return facts_of_trace(self, window=window, **kwargs)
