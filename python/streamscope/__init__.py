"""streamscope for Python: traces and every analysis result as pandas DataFrames.

    import streamscope
    trace = streamscope.open("trace.sqlite")        # streamscope trace or Nsight Systems export
    trace.ops                                       # GPU ops, times in ns
    report = trace.report(nvtx="measured")          # the C++ analyzer, through the CLI
    report.overlap_pairs                            # overlapped_ns / possible_ns per category pair
    report.gaps                                     # idle gaps with their causes
    report.findings                                 # what to change, with the saving
    trace.plot_timeline(nvtx="measured")            # matplotlib figure
    ranks = streamscope.open_ranks("traces/")       # a folder of rank traces, in rank order

See python/README.md. Names are imported on first use, so that
`streamscope.record` works in a training job without importing pandas or
matplotlib.
"""
import importlib

from ._cli import find_cli
from .errors import (CliNotFoundError, CollectorError, NotATraceError, OutputError, OutputExistsError,
                     StreamscopeError, TraceNotFoundError, UsageError, VerdictFailedError, WindowError)
from .record import find_collector, record
from .window import window_args

__version__ = "0.1.0"

_LAZY = {
    "Trace": "trace", "open": "trace", "open_all": "trace", "is_streamscope_trace": "trace",
    "Report": "report", "Diagnosis": "report", "report_traces": "report",
    "tables": "table_files",
    "open_ranks": "rank_folder",
    "plot_timeline": "plot",
    "RankFacts": "ranks", "rank_facts": "ranks", "CrossRank": "ranks", "merge_facts": "ranks",
}
_SUBMODULES = ("ranks",)  # `streamscope.ranks.analyze(...)` without importing it first

__all__ = sorted(["CliNotFoundError", "CollectorError", "NotATraceError", "OutputError", "OutputExistsError",
                  "StreamscopeError", "TraceNotFoundError", "UsageError", "VerdictFailedError", "WindowError",
                  "find_cli", "find_collector", "record", "window_args", *_LAZY, *_SUBMODULES])


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'streamscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
