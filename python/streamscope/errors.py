"""Exceptions raised by the streamscope package.

Every error of the package is a StreamscopeError with a one-line message;
the subclasses say what went wrong and are also the built-in exception a
caller may already catch (a missing trace is a FileNotFoundError, an
existing output a FileExistsError, a bad window a ValueError).
"""
from __future__ import annotations

from typing import Optional


class StreamscopeError(Exception):
    """A streamscope command failed; `exit_code` is the CLI's exit code
    (analyzer/README.md "Exit codes") and `stderr` its message, when the
    error came from the CLI."""

    def __init__(self, message: str, exit_code: Optional[int] = None, stderr: str = ""):
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class CliNotFoundError(StreamscopeError):
    """The streamscope CLI binary could not be found."""


class CollectorError(StreamscopeError):
    """The collector library is missing or refused to start or stop."""


class TraceNotFoundError(StreamscopeError, FileNotFoundError):
    """A trace file (or a folder of traces) does not exist (CLI exit 3)."""


class NotATraceError(StreamscopeError, ValueError):
    """The path is not a trace the analyzer reads: a folder, a file that is
    no trace, an incomplete or unsupported one (CLI exit 4, 5, 6, 8)."""


class UsageError(StreamscopeError, ValueError):
    """The arguments are wrong (CLI exit 2)."""


class WindowError(StreamscopeError, ValueError):
    """The window selects nothing, or lies outside the trace (CLI exit 7)."""


class OutputError(StreamscopeError, OSError):
    """An output cannot be written (CLI exit 9)."""


class OutputExistsError(OutputError, FileExistsError):
    """An output file exists and force=True was not given (CLI exit 9)."""


class VerdictFailedError(StreamscopeError):
    """`compare`: the optimization was not verified (CLI exit 10)."""


# The class for each CLI exit code; any other code is a StreamscopeError.
ERROR_OF_EXIT_CODE = {2: UsageError, 3: TraceNotFoundError, 4: NotATraceError, 5: NotATraceError,
                      6: NotATraceError, 7: WindowError, 8: NotATraceError, 9: OutputError,
                      10: VerdictFailedError}
