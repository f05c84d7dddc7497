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
``window=None`` (the default)              nothing: the commands' one default window
                                           (the steady state, else the span of
                                           GPU activity)
=========================================  ======================================
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

WindowArg = Union[None, str, Tuple[int, int]]


def window_args(window: WindowArg = None, nvtx: Optional[str] = None,
                nvtx_instance: Optional[int] = None, absolute: bool = False) -> List[str]:
    """CLI options for a window; raises ValueError for a contradictory or
    malformed one (before any process is started)."""
    if nvtx_instance is not None and nvtx is None:
        raise ValueError("nvtx_instance needs nvtx='<range name>'")
    if nvtx is not None:
        if window not in (None, "whole") or absolute:
            raise ValueError("give either nvtx=... or window=..., not both")
        if not isinstance(nvtx, str) or not nvtx:
            raise ValueError("nvtx must be a non-empty NVTX range name")
        args = ["--nvtx", nvtx]
        if nvtx_instance is not None:
            k = int(nvtx_instance)
            if k < 1:
                raise ValueError("nvtx_instance is 1-based: it must be at least 1")
            args += ["--nvtx-instance", str(k)]
        return args
    if window is None:
        if absolute:
            raise ValueError("absolute=True needs window=(start_ns, end_ns)")
        return []
    if isinstance(window, str):
        if window != "whole":
            raise ValueError(f"window must be 'whole', (start_ns, end_ns) or None, not {window!r}; "
                             "for an NVTX range use nvtx='name'")
        if absolute:
            raise ValueError("absolute=True needs window=(start_ns, end_ns)")
        return ["--window", "whole"]
    try:
        start, end = window
        start, end = int(start), int(end)
    except (TypeError, ValueError):
        raise ValueError(f"window must be 'whole', (start_ns, end_ns) or None, not {window!r}") from None
    if end <= start:
        raise ValueError(f"window end ({end}) must be greater than its start ({start})")
    args = ["--from", str(start), "--to", str(end)]
    if absolute:
        args.append("--absolute")
    return args
