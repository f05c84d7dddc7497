"""The analysis window: how a Python argument maps to the CLI's options.

=========================================  ======================================
Python                                     CLI (`streamscope report`/`diagnose`)
=========================================  ======================================
``window="whole"``                         ``--window whole``
``nvtx="step"``                            ``--nvtx step`` (every instance)
``nvtx="step", nvtx_instance=3``           ``--nvtx step --nvtx-instance 3``
``window=(start_ns, end_ns)``              ``--from START --to END`` (ns from the
                                           trace start)
``window=(start_ns, end_ns), absolute=1``  ``... --absolute`` (trace-clock ns)
``window=(start_ns, end_ns), clip=True``   ``... --clip`` (a window reaching outside
                                           the trace is cut to it, not refused)
``window=None`` (the default)              nothing: the commands' one default window
                                           (the steady state, else the span of
                                           GPU activity)
=========================================  ======================================
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from .errors import UsageError

WindowArg = Union[None, str, Tuple[int, int]]


def window_args(window: WindowArg = None, nvtx: Optional[str] = None,
                nvtx_instance: Optional[int] = None, absolute: bool = False, clip: bool = False) -> List[str]:
    """CLI options for a window; raises UsageError (a ValueError) for a
    contradictory or malformed one (before any process is started). A
    (start_ns, end_ns) window reaching outside the trace is the CLI's
    WindowError, naming the trace's bounds, unless clip=True."""
    if clip and not (isinstance(window, tuple) or isinstance(window, list)):
        raise UsageError("clip=True needs window=(start_ns, end_ns)")
    if nvtx_instance is not None and nvtx is None:
        raise UsageError("nvtx_instance needs nvtx='<range name>'")
    if nvtx is not None:
        if window not in (None, "whole") or absolute:
            raise UsageError("give either nvtx=... or window=..., not both")
        if not isinstance(nvtx, str) or not nvtx:
            raise UsageError("nvtx must be a non-empty NVTX range name")
        args = ["--nvtx", nvtx]
        if nvtx_instance is not None:
            k = int(nvtx_instance)
            if k < 1:
                raise UsageError("nvtx_instance is 1-based: it must be at least 1")
            args += ["--nvtx-instance", str(k)]
        return args
    if window is None:
        if absolute:
            raise UsageError("absolute=True needs window=(start_ns, end_ns)")
        return []
    if isinstance(window, str):
        if window != "whole":
            raise UsageError(f"window must be 'whole', (start_ns, end_ns) or None, not {window!r}; "
                             "for an NVTX range use nvtx='name'")
        if absolute:
            raise UsageError("absolute=True needs window=(start_ns, end_ns)")
        return ["--window", "whole"]
    try:
        start, end = window
        start, end = int(start), int(end)
    except (TypeError, ValueError):
        raise UsageError(f"window must be 'whole', (start_ns, end_ns) or None, not {window!r}") from None
    if not absolute and start < 0:
        raise UsageError(f"window start {start} is before the trace start: (start_ns, end_ns) count ns from "
                         "the trace start (0 or more; absolute=True for trace-clock times)")
    if end <= start:
        raise UsageError(f"window end ({end}) must be greater than its start ({start})")
    args = ["--from", str(start), "--to", str(end)]
    if absolute:
        args.append("--absolute")
    if clip:
        args.append("--clip")
    return args
