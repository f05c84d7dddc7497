"""Analysis results as DataFrames, computed by the C++ analyzer.

`Report.run` runs ``streamscope report --format csv --output-dir DIR`` once: the CLI
writes every analysis table (analyzer/README.md "Analysis tables") to
DIR/<table>.csv, and each table is read into a DataFrame the first time it
is asked for. The findings (diagnose's causes, with their impact and
remedy) are not tables: they come from ``report --format json``, run on
first use of `findings` or `json`. Times are trace-clock ns (absolute
Int64), shares fractions 0..1.
"""
from __future__ import annotations

import json
import tempfile
from functools import cached_property
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from . import _cli
from .errors import TraceNotFoundError, UsageError
from .window import window_args

# Friendly names of the analysis tables (README "Analysis tables").
TABLE_ATTRIBUTES = {
    "windows": "analysis_window",
    "overlap_categories": "analysis_overlap_category",
    "overlap_pairs": "analysis_overlap_pair",
    "overlap_stream_pairs": "analysis_overlap_stream_pair",
    "overlap_intervals": "analysis_overlap_interval",
    "overlap_interval_ops": "analysis_overlap_interval_op",
    "communication": "analysis_communication",
    "idle_devices": "analysis_idle_device",
    "idle_streams": "analysis_idle_stream",
    "idle_gaps": "analysis_idle_gap",
    "instances": "analysis_instances",
    "gap_causes": "analysis_gap_causes",
    "worst_gaps": "analysis_gap_worst",
    "worst_gap_parts": "analysis_gap_worst_part",
    "hidden_syncs": "analysis_hidden_sync",
    "hidden_sync_serialization": "analysis_hidden_sync_serialization",
    "hidden_sync_calls": "analysis_hidden_sync_calls",
    "critical_path": "analysis_critical_path",
    "critical_path_idle": "analysis_critical_path_idle",
    "launch_stats": "analysis_launch_stats",
    "launch_stats_gaps": "analysis_launch_stats_gaps",
    "launch_stats_streams": "analysis_launch_stats_streams",
    "ownership": "analysis_ownership",
    "hazards": "analysis_hazard",
    "hazard_summary": "analysis_hazard_summary",
    "timing_audit": "analysis_timing_audit",
    "timing_audit_nvtx": "analysis_timing_audit_nvtx",
    "timing_audit_nvtx_ranges": "analysis_timing_audit_nvtx_range",
}

FINDING_COLUMNS = ["window_index", "window_label", "rank", "step", "cause", "primary", "significant",
                   "impact_ns", "saving_estimated", "estimated_saving_ns", "impact_share_of_gpu_span",
                   "impact_share_of_window", "summary", "remedy",
                   "evidence_ops", "figures"]


# The CLI's column types (its datapackage.json) as pandas dtypes.
_DTYPE_OF_SCHEMA_TYPE = {"integer": "Int64", "number": "Float64", "string": "string"}


def table_schema(path: Path) -> Optional[Dict[str, str]]:
    """{column: 'integer' | 'number' | 'string'} of a table that
    `report --format csv --output-dir DIR` wrote, from DIR/datapackage.json
    (the same types whether the table has rows or not); None without one."""
    package = Path(path).parent / "datapackage.json"
    if not package.is_file():
        return None
    for resource in json.loads(package.read_text()).get("resources", []):
        if resource.get("path") == Path(path).name:
            return {f["name"]: f["type"] for f in resource["schema"]["fields"]}
    return None


def read_table_csv(path: Path) -> pd.DataFrame:
    """One table written by `report --format csv --output-dir DIR`: typed
    by the CLI's schema (exact Int64 ns, Float64, string; the same dtypes
    for an empty table), NA for NULL; only an empty field is NULL, so a
    kernel named 'NA' stays a name."""
    schema = table_schema(path)
    if schema is not None:
        dtype = {c: _DTYPE_OF_SCHEMA_TYPE.get(t, "string") for c, t in schema.items()}
    else:
        dtype = {"key": "string", "value": "string"} if Path(path).stem == "analysis_trace_summary" else None
    return pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values=[""],
                       dtype_backend="numpy_nullable")


def _common_args(window, nvtx, nvtx_instance, absolute, gap_threshold_us, top, sections=None,
                 clip=False) -> List[str]:
    args = window_args(window, nvtx, nvtx_instance, absolute, clip)
    if sections is not None:
        if isinstance(sections, str):
            sections = [sections]
        if not sections:
            raise UsageError("sections: name at least one report section (or pass None for all)")
        for name in sections:
            args += ["--section", str(name)]
    if gap_threshold_us is not None:
        if gap_threshold_us < 0:
            raise UsageError("gap_threshold_us must be >= 0")
        args += ["--gap-threshold", repr(float(gap_threshold_us))]
    if top is not None:
        if int(top) < 0:
            raise UsageError("top must be >= 0")
        args += ["--top", str(int(top))]
    return args


def findings_frame(windows: Sequence[Dict[str, Any]], trace_index: Optional[int] = None) -> pd.DataFrame:
    """Diagnose findings of windows (each a diagnose window object, with its
    window index) as one DataFrame."""
    rows = []
    for index, d in windows:
        if not d:
            continue
        label = (d.get("window") or {}).get("label")
        for f in d.get("findings", []):
            rows.append({
                "window_index": index, "window_label": label, "rank": f.get("rank"),
                "step": f.get("step"), "cause": f.get("cause"), "primary": bool(f.get("primary")),
                "significant": bool(f.get("significant")), "impact_ns": f.get("impact_ns"),
                "saving_estimated": bool(f.get("saving_estimated")),
                "estimated_saving_ns": f.get("estimated_saving_ns"),
                "impact_share_of_gpu_span": f.get("impact_share_of_gpu_span"),
                "impact_share_of_window": f.get("impact_share_of_window"),
                "summary": f.get("summary"), "remedy": f.get("remedy"),
                "evidence_ops": len((f.get("evidence") or {}).get("ops", [])),
                "figures": f.get("figures", {}),
            })
    frame = pd.DataFrame(rows, columns=FINDING_COLUMNS)
    if trace_index is not None:
        frame.insert(0, "trace_index", trace_index)
    for c in ("window_index", "rank", "impact_ns", "estimated_saving_ns"):
        frame[c] = frame[c].astype("Int64")
    return frame


class Report:
    """The results of `streamscope report` for one window choice.

    Tables (DataFrames, read on first use): every analysis table by its
    name (``report.table('analysis_idle_gap')`` or without the prefix:
    ``report['idle_gap']``) and by a friendly attribute: windows,
    overlap_categories, overlap_pairs (per category pair: overlapped_ns,
    possible_ns, hidden_share), overlap_stream_pairs, overlap_intervals,
    overlap_interval_ops, communication, idle_devices, idle_streams,
    idle_gaps, gaps (device idle gaps with their causes), instances (one
    row per step of a window made of repeated instances), gap_causes,
    worst_gaps, hidden_syncs, hidden_sync_serialization, hidden_sync_calls
    (each call with idle_account_ns, the idle the gap causes charge to it),
    critical_path, critical_path_idle (the idle along the path by cause and
    crossing segment kind), launch_stats, launch_stats_gaps, launch_stats_streams, ownership,
    hazards, hazard_summary, timing_audit, timing_audit_nvtx,
    timing_audit_nvtx_ranges. With several traces each table starts with
    trace_index. Plus `summary` (dict), `findings` and `json`.
    """

    def __init__(self, paths: Sequence[Path], args: List[str], table_dir: Path, tmp=None, keep=None):
        self.paths = [Path(p) for p in paths]
        self.args = list(args)  # the CLI window and threshold options used
        self.table_dir = Path(table_dir)
        self._tmp = tmp
        self._keep = keep  # the Trace whose (temporary) file the report read
        self._frames: Dict[str, pd.DataFrame] = {}

    @classmethod
    def run(cls, paths: Sequence[Path], window=None, nvtx=None, nvtx_instance=None, absolute=False,
            gap_threshold_us=None, top=None, keep=None, sections=None, clip=False) -> "Report":
        args = _common_args(window, nvtx, nvtx_instance, absolute, gap_threshold_us, top, sections, clip)
        tmp = tempfile.TemporaryDirectory(prefix="streamscope-report-")
        table_dir = Path(tmp.name) / "tables"
        try:
            _cli.run_cli(["report", *map(str, paths), "--format", "csv", "--output-dir", str(table_dir), *args])
        except BaseException:
            tmp.cleanup()
            raise
        return cls(paths, args, table_dir, tmp=tmp, keep=keep)

    def __repr__(self) -> str:
        return f"<streamscope.Report {', '.join(map(str, self.paths))} {' '.join(self.args)}>"

    @property
    def table_names(self) -> List[str]:
        return sorted(p.stem for p in self.table_dir.glob("*.csv"))

    def table(self, name: str) -> pd.DataFrame:
        """An analysis table by name, with or without the 'analysis_' prefix."""
        full = name if name.startswith("analysis_") else "analysis_" + name
        if full not in self._frames:
            path = self.table_dir / f"{full}.csv"
            if not path.is_file():
                raise KeyError(f"no analysis table {full!r}; tables: {', '.join(self.table_names)}")
            self._frames[full] = read_table_csv(path)
        return self._frames[full]

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.table(name)

    def __getattr__(self, name: str):
        table = TABLE_ATTRIBUTES.get(name)
        if table is None:
            raise AttributeError(name)
        return self.table(table)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(TABLE_ATTRIBUTES))

    def tables(self) -> Dict[str, pd.DataFrame]:
        """Every analysis table, read now."""
        return {name: self.table(name) for name in self.table_names}

    @property
    def summary(self) -> Dict[str, str]:
        """analysis_trace_summary as a dict (one trace; with several, the
        first trace's)."""
        t = self.table("analysis_trace_summary")
        if "trace_index" in t.columns:
            t = t[t["trace_index"] == 0]
        return dict(zip(t["key"], t["value"]))

    @property
    def gaps(self) -> pd.DataFrame:
        """Device idle gaps at least the gap threshold long (idle_gaps rows
        whose stream_id is NA), with the cause analysis' primary_cause for
        the worst gaps it explains (NA for the others; worst_gap_parts holds
        what each of those gaps was made of, gap_causes the totals over every
        gap)."""
        gaps = self.idle_gaps
        device = gaps[gaps["stream_id"].isna()].drop(columns=["stream_id"])
        keys = [c for c in ("trace_index", "window_index", "device_id", "start_ns", "end_ns") if c in gaps.columns]
        worst = self.worst_gaps
        if worst.empty or "primary_cause" not in worst.columns:
            out = device.copy()
            out["primary_cause"] = pd.array([pd.NA] * len(out), dtype="string")
            return out.reset_index(drop=True)
        causes = worst[keys + ["primary_cause"]].drop_duplicates(keys)
        return device.merge(causes, on=keys, how="left").reset_index(drop=True)

    @cached_property
    def json(self) -> Dict[str, Any]:
        """`streamscope report --format json` for the same traces and window
        (analyzer/README.md "JSON"), as a dict."""
        proc = _cli.run_cli(["report", *map(str, self.paths), "--format", "json", *self.args])
        return json.loads(proc.stdout)

    @cached_property
    def findings(self) -> pd.DataFrame:
        """Diagnose findings of every window (COMPARE.md "JSON"): window_index,
        window_label, rank, step, cause, primary, significant, impact_ns,
        impact shares, summary, remedy, evidence_ops (how many ops cited),
        figures (dict). With several traces, trace_index first."""
        traces = self.json.get("traces", [])
        frames = [findings_frame([(w.get("index", i), w.get("diagnose")) for i, w in enumerate(t.get("windows", []))],
                                 trace_index=k if len(traces) > 1 else None)
                  for k, t in enumerate(traces)]
        if not frames:
            return findings_frame([])
        return pd.concat(frames, ignore_index=True)


def report_traces(paths, window=None, *, nvtx=None, nvtx_instance=None, absolute=False, gap_threshold_us=None,
                  top=None, sections=None, clip=False) -> Report:
    """`streamscope report PATH...` over the processes (ranks) of one run
    (not named `report`: that is this module's name in the package):
    every table with a leading trace_index (the position in `paths`), and
    `ranks` / `skews`, the CLI's cross-rank comparison. `paths`: trace
    files or Trace objects (e.g. streamscope.open_ranks(folder))."""
    if isinstance(paths, (str, Path)) or hasattr(paths, "path"):
        paths = [paths]
    paths = [Path(p.path) if hasattr(p, "path") else Path(p) for p in paths]
    for p in paths:
        if not p.exists():
            raise TraceNotFoundError(f"{p}: no such trace file", exit_code=3)
    return Report.run(paths, window=window, nvtx=nvtx, nvtx_instance=nvtx_instance, absolute=absolute,
                      gap_threshold_us=gap_threshold_us, top=top, sections=sections, clip=clip)


def _ranks_section(report: "Report") -> Dict[str, Any]:
    return (report.json.get("combined") or {}).get("ranks") or {}


def _ranks(self) -> pd.DataFrame:
    """combined.ranks of the JSON (two or more traces; analyzer/README.md
    "Several processes"): per rank busy/idle, communication, compute and
    their overlap, waited_ns, caused_wait_ns, last_arrivals. Empty for one
    trace."""
    rows = _ranks_section(self).get("ranks", [])
    frame = pd.DataFrame(rows)
    for c in frame.columns:
        if c.endswith("_ns") or c in ("rank", "pid", "collectives", "last_arrivals"):
            frame[c] = frame[c].astype("Int64")
    return frame


def _skews(self) -> pd.DataFrame:
    """The largest arrival skews of matched collectives (combined.ranks.worst_skews)."""
    return pd.DataFrame(_ranks_section(self).get("worst_skews", []),
                        columns=["name", "ordinal", "first_rank", "last_rank", "first_start_ns", "last_start_ns",
                                 "skew_ns"])


Report.ranks = property(_ranks)
Report.skews = property(_skews)


class Diagnosis:
    """`streamscope diagnose --format json` as DataFrames: `findings` (one
    row per finding of every window), `json` (the dict), `primary` (the
    primary cause of each window)."""

    def __init__(self, paths: Sequence[Path], args: List[str], data: Dict[str, Any]):
        self.paths = [Path(p) for p in paths]
        self.args = args
        self.json = data

    @classmethod
    def run(cls, paths: Sequence[Path], window=None, nvtx=None, nvtx_instance=None,
            absolute=False, clip=False) -> "Diagnosis":
        args = window_args(window, nvtx, nvtx_instance, absolute, clip)
        proc = _cli.run_cli(["diagnose", *map(str, paths), "--format", "json", *args])
        return cls(paths, args, json.loads(proc.stdout))

    @cached_property
    def findings(self) -> pd.DataFrame:
        traces = self.json.get("traces", [])
        frames = [findings_frame(list(enumerate(t.get("windows", []))),
                                 trace_index=k if len(traces) > 1 else None)
                  for k, t in enumerate(traces)]
        return pd.concat(frames, ignore_index=True) if frames else findings_frame([])

    @property
    def primary(self) -> pd.DataFrame:
        """The primary finding of each window (no row for a window without one)."""
        f = self.findings
        return f[f["primary"]].reset_index(drop=True)

    def __repr__(self) -> str:
        return f"<streamscope.Diagnosis {', '.join(map(str, self.paths))}: {len(self.findings)} findings>"
