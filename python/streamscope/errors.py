"""Exceptions raised by the streamscope package."""
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
