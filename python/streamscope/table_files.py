"""Every analysis table as files: CSV (what the CLI writes) or Parquet.

    streamscope.tables("trace.sqlite", nvtx="step", format="parquet", out_dir="tables/")
    streamscope-tables trace.sqlite --nvtx step --format parquet --output-dir tables/

then, in one call each:

    pandas.read_parquet("tables/analysis_overlap_pair.parquet")
    polars.read_parquet("tables/analysis_overlap_pair.parquet")
    duckdb.sql("SELECT * FROM 'tables/analysis_overlap_pair.parquet'")

The CSV files come from ``streamscope report --format csv --output-dir DIR``,
with DIR/datapackage.json giving every column's type; Parquet files are
those tables converted with pyarrow (optional dependency:
``pip install 'streamscope[parquet]'``), with exact 64-bit integers, NULLs
kept, and the same typed schema whether a table has rows or not, so that
one table of several traces (tables/*/analysis_idle_gap.parquet) reads in
one call with pandas, polars or DuckDB.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from . import _cli
from .errors import OutputError, OutputExistsError, StreamscopeError, TraceNotFoundError, UsageError
from .report import _common_args, read_table_csv

PathLike = Union[str, Path]
FORMATS = ("csv", "parquet")


def _existing(out_dir: Path, names: Sequence[str], suffix: str) -> List[Path]:
    return [out_dir / f"{n}{suffix}" for n in names if (out_dir / f"{n}{suffix}").exists()]


def tables(trace_path: Union[PathLike, Sequence[PathLike]], window=None, *, format: str = "csv",  # noqa: A002
           out_dir: Optional[PathLike] = None, force: bool = False, nvtx: Optional[str] = None,
           nvtx_instance: Optional[int] = None, absolute: bool = False,
           gap_threshold_us: Optional[float] = None, top: Optional[int] = None,
           clip: bool = False) -> Dict[str, Path]:
    """Writes every analysis table of `streamscope report` for the window to
    out_dir/<table>.csv or .parquet; returns {table name: file}. Existing
    files are never replaced without force=True (checked before any is
    written). Several trace paths (the processes of one run) give one file
    per table with a leading trace_index column."""
    if format not in FORMATS:
        raise UsageError(f"format must be one of {FORMATS}, not {format!r}")
    if out_dir is None:
        raise UsageError("out_dir is required: the folder that receives one file per table")
    paths = [trace_path] if isinstance(trace_path, (str, Path)) else list(trace_path)
    if not paths:
        raise UsageError("give at least one trace")
    for p in paths:
        if not Path(p).exists():
            raise TraceNotFoundError(f"{p}: no such trace file", exit_code=3)
    out_dir = Path(out_dir)
    args = _common_args(window, nvtx, nvtx_instance, absolute, gap_threshold_us, top, clip=clip)
    if format == "csv":
        cmd = ["report", *map(str, paths), "--format", "csv", "--output-dir", str(out_dir), *args]
        if force:
            cmd.append("--force")
        _cli.run_cli(cmd)
        return {p.stem: p for p in sorted(out_dir.glob("analysis_*.csv"))}
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise StreamscopeError("format='parquet' needs pyarrow: pip install pyarrow "
                               "(or pip install 'streamscope[parquet]')") from None
    with tempfile.TemporaryDirectory(prefix="streamscope-tables-") as tmp:
        csv_dir = Path(tmp) / "csv"
        _cli.run_cli(["report", *map(str, paths), "--format", "csv", "--output-dir", str(csv_dir), *args])
        csv_files = sorted(csv_dir.glob("analysis_*.csv"))
        if not force:
            clash = _existing(out_dir, [p.stem for p in csv_files], ".parquet")
            if clash:
                raise OutputExistsError(f"{clash[0]}: exists; pass force=True to replace it", exit_code=9)
        out_dir.mkdir(parents=True, exist_ok=True)
        written = {}
        for csv in csv_files:
            frame = read_table_csv(csv)
            table = pa.Table.from_pandas(frame, preserve_index=False)
            target = out_dir / f"{csv.stem}.parquet"
            if target.is_symlink():
                raise OutputError(f"{target}: is a symbolic link; refusing to write through it", exit_code=9)
            pq.write_table(table, target)
            written[csv.stem] = target
        return written


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`streamscope-tables TRACE... [window] --format csv|parquet --output-dir DIR [--force]`."""
    parser = argparse.ArgumentParser(
        prog="streamscope-tables",
        description="Write every streamscope analysis table to DIR, one file per table "
                    "(CSV with a header row, or Parquet), for pandas, polars or DuckDB.")
    parser.add_argument("traces", nargs="+", help="trace files (the processes of one run)")
    parser.add_argument("--output-dir", "-o", dest="output", required=True,
                        help="folder that receives <table>.csv/.parquet (created when missing)")
    parser.add_argument("--format", choices=FORMATS, default="parquet")
    parser.add_argument("--force", action="store_true", help="replace existing table files")
    parser.add_argument("--window", choices=["whole"],
                        help="the whole trace (the default without --nvtx or --from/--to)")
    parser.add_argument("--nvtx", help="every instance of this NVTX range, each a window")
    parser.add_argument("--nvtx-instance", type=int, help="only the K-th instance (1-based)")
    parser.add_argument("--from", dest="start", type=int, help="window start, ns from the trace start")
    parser.add_argument("--to", dest="end", type=int, help="window end, ns from the trace start")
    parser.add_argument("--absolute", action="store_true", help="--from/--to are trace-clock ns")
    parser.add_argument("--clip", action="store_true",
                        help="cut a --from/--to window that reaches outside the trace to the trace")
    parser.add_argument("--gap-threshold", type=float, help="list idle gaps of at least US microseconds")
    args = parser.parse_args(argv)
    if (args.start is None) != (args.end is None):
        parser.error("--from and --to go together")
    window = (args.start, args.end) if args.start is not None else ("whole" if args.nvtx is None else None)
    try:
        written = tables(args.traces, window=window, format=args.format, out_dir=args.output, force=args.force,
                         nvtx=args.nvtx, nvtx_instance=args.nvtx_instance, absolute=args.absolute,
                         gap_threshold_us=args.gap_threshold, clip=args.clip)
    except StreamscopeError as e:
        print(f"streamscope-tables: {e}", file=sys.stderr)
        code = getattr(e, "exit_code", None)
        if isinstance(code, int) and code > 0:
            return code  # the CLI's own (analyzer/README.md "Exit codes")
        return 2
    for name, path in written.items():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
