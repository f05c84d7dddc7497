"""Recording a section of a Python program (PyTorch included) into a trace.

    with streamscope.record("step.sqlite"):
        model(batch)                  # CUDA work here is recorded

    @streamscope.record("train.sqlite", kinds="+memory")
    def train(): ...

The collector library (libstreamscope_collector.so) is loaded with ctypes
and driven through its C entry points

    int streamscope_record_start(const char* output_path, const char* options);
    int streamscope_record_stop(void);

(0 = success). The library is found at $STREAMSCOPE_COLLECTOR, then
inside this package (a wheel built with CUDA), then build/lib of a
source checkout, then next to the streamscope CLI (its folder and
../lib). `kinds` uses STREAMSCOPE_KINDS' syntax ('default',
'all', 'kernel,memcpy', '+memory', ...) and is passed as the options
string ``kinds=<kinds>``; `options` passes a raw options string instead
(None: the collector's defaults).

`capture_range` narrows what reaches the trace inside the block, as
``streamscope run --capture-range``: 'cudaProfilerApi', 'nvtx:NAME' or
'nvtx:NAME@FIRST-LAST' (for example 'nvtx:step@100-110'); `start_paused`
records nothing until ``streamscope capture start PID``.

    with streamscope.record("steps.sqlite", capture_range="nvtx:step@100-110"):
        train(steps=200)

`flight_recorder` ('30s', '500ms' or a record count) keeps only the most
recent activity and writes a trace (PATH.dumpN.sqlite) only when
triggered: at the end of the block, on ``streamscope capture dump PID``,
or, with `trigger` ('nvtx:step>2x'), when an instance of that NVTX range
is slower than K times the running median.

    with streamscope.record("train.sqlite", flight_recorder="30s", trigger="nvtx:step>2x"):
        train(steps=100_000)
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from pathlib import Path
from typing import Optional, Sequence, Union

from . import _cli
from .errors import CliNotFoundError, CollectorError, UsageError

LIBRARY_NAME = "libstreamscope_collector.so"

_lock = threading.Lock()
_active: Optional["record"] = None
_loaded = {}


def find_collector() -> Path:
    """The collector library: $STREAMSCOPE_COLLECTOR, then the wheel's own,
    then build/lib of a source checkout, then next to the CLI. Raises
    CollectorError naming every place tried."""
    tried = []
    env = os.environ.get("STREAMSCOPE_COLLECTOR")
    if env:
        if Path(env).is_file():
            return Path(env)
        tried.append(f"STREAMSCOPE_COLLECTOR={env} (no such file)")
    else:
        tried.append("STREAMSCOPE_COLLECTOR (unset)")
    bundled = _cli.native_dir() / "lib" / LIBRARY_NAME
    if bundled.is_file():
        return bundled
    tried.append(f"{bundled} (a wheel built without CUDA has none)")
    root = _cli.source_checkout()
    if root is not None:
        p = root / "build" / "lib" / LIBRARY_NAME
        if p.is_file():
            return p
        tried.append(str(p))
    try:
        cli = _cli.find_cli().resolve()
        for p in (cli.parent / LIBRARY_NAME, cli.parent.parent / "lib" / LIBRARY_NAME):
            if p.is_file():
                return p
            tried.append(str(p))
    except CliNotFoundError:
        tried.append("next to the streamscope CLI (not found)")
    raise CollectorError(
        f"cannot find {LIBRARY_NAME}; tried " + ", ".join(tried)
        + ". Build the collector (a CUDA build: tools/build.sh) or set STREAMSCOPE_COLLECTOR to its path.")


def _load(path: Path):
    key = str(path.resolve())
    if key not in _loaded:
        try:
            lib = ctypes.CDLL(key, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise CollectorError(f"{path}: cannot load the collector library: {e}") from None
        try:
            start, stop = lib.streamscope_record_start, lib.streamscope_record_stop
        except AttributeError:
            raise CollectorError(f"{path}: has no streamscope_record_start/streamscope_record_stop; "
                                 "this collector predates in-process recording (rebuild it)") from None
        start.argtypes, start.restype = [ctypes.c_char_p, ctypes.c_char_p], ctypes.c_int
        stop.argtypes, stop.restype = [], ctypes.c_int
        _loaded[key] = lib
    return _loaded[key]


def _options(kinds: Union[None, str, Sequence[str]], options: Optional[str], capture_range: Optional[str] = None,
             start_paused: bool = False, flight_recorder: Optional[str] = None,
             trigger: Optional[str] = None) -> Optional[str]:
    if kinds is not None and options is not None:
        raise UsageError("give kinds=... or options=..., not both")
    controls = {"capture_range": capture_range, "flight_recorder": flight_recorder, "trigger": trigger}
    if options is not None and (start_paused or any(v is not None for v in controls.values())):
        raise UsageError("give capture_range/start_paused/flight_recorder/trigger or options=..., not both")
    if trigger is not None and flight_recorder is None:
        raise UsageError("trigger needs flight_recorder (a trigger dumps the flight recorder's ring)")
    if options is not None:
        return options
    items = []
    if kinds is not None:
        if not isinstance(kinds, str):
            kinds = ",".join(kinds)
        if not kinds or any(c in kinds for c in ";= \n"):
            raise UsageError(f"kinds must be a STREAMSCOPE_KINDS list such as 'default' or 'kernel,memcpy', not {kinds!r}")
        items.append(f"kinds={kinds}")
    for key, value in controls.items():
        if value is None:
            continue
        if not value or any(c in value for c in ";\n"):
            raise UsageError(f"{key} must be a non-empty value without ';' (see streamscope run --help), not {value!r}")
        items.append(f"{key}={value}")
    if start_paused:
        items.append("start_paused=1")
    return "; ".join(items) if items else None


class record(contextlib.ContextDecorator):  # noqa: N801 (used like a function: streamscope.record(...))
    """Context manager and decorator that records the CUDA activity of the
    code inside it to `path` (a streamscope trace). '{n}' in the path
    becomes the recording's number (1, 2, ...), so that a decorated
    function called in a loop writes one trace per call. One recording at
    a time per process; a failing start or stop raises CollectorError with
    the collector's return code. After the block, `trace()` opens the
    last file written."""

    def __init__(self, path: Union[str, Path], kinds: Union[None, str, Sequence[str]] = None,
                 options: Optional[str] = None, library: Union[None, str, Path] = None,
                 capture_range: Optional[str] = None, start_paused: bool = False,
                 flight_recorder: Optional[str] = None, trigger: Optional[str] = None):
        self.template = str(path)
        self.path = Path(self.template.replace("{n}", "1"))
        self.options = _options(kinds, options, capture_range, start_paused, flight_recorder, trigger)
        self.library = Path(library) if library is not None else None
        self.count = 0  # recordings made; '{n}' in the path becomes this number (1-based)

    def __enter__(self) -> "record":
        global _active
        lib = _load(self.library if self.library is not None else find_collector())
        with _lock:
            if _active is not None:
                raise CollectorError(f"already recording to {_active.path}; recordings cannot nest")
            self.path = Path(self.template.replace("{n}", str(self.count + 1)))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            opts = self.options.encode() if self.options is not None else None
            rc = lib.streamscope_record_start(os.fsencode(str(self.path)), opts)
            if rc != 0:
                raise CollectorError(f"streamscope_record_start({str(self.path)!r}, {self.options!r}) returned {rc}; "
                                     "the collector's message, if any, is on stderr", exit_code=rc)
            _active = self
            self._lib = lib
            self.count += 1
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        global _active
        with _lock:
            _active = None
            rc = self._lib.streamscope_record_stop()
        if rc != 0 and exc_type is None:
            raise CollectorError(f"streamscope_record_stop() returned {rc} for {self.path}; "
                                 "the collector's message, if any, is on stderr", exit_code=rc)
        return False  # an exception from the block propagates

    def trace(self):
        """The recorded trace (streamscope.open(path))."""
        from .trace import open as open_trace
        return open_trace(self.path)
