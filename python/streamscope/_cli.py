"""Finding and running the ``streamscope`` command-line tool.

Every analysis result in this package is computed by the C++ analyzer
through the CLI's machine-readable output (JSON and CSV); nothing is
re-implemented in Python. python/README.md gives the measured cost of
this path.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, Optional

from .errors import ERROR_OF_EXIT_CODE, CliNotFoundError, OutputExistsError, OutputError, StreamscopeError

# Exit codes of the CLI (analyzer/cli/exit_codes.h), for error messages.
EXIT_CODES = {
    1: "internal error",
    2: "bad command line",
    3: "file not found or unreadable",
    4: "not a trace (not SQLite, truncated or damaged)",
    5: "unsupported schema version",
    6: "not a complete trace (missing tables)",
    7: "the window selects nothing or lies outside the trace",
    8: "records too inconsistent to analyze",
    9: "cannot write an output file",
    10: "optimization not verified",
}


def source_checkout() -> Optional[Path]:
    """The repository root when this package runs from a source checkout
    (python/streamscope/ inside it), else None."""
    root = Path(__file__).resolve().parents[2]
    if (root / "schema" / "streamscope_schema.sql").is_file():
        return root
    return None


def native_dir() -> Path:
    """Where a wheel puts its native part: bin/streamscope and, when built
    with CUDA, lib/libstreamscope_collector.so."""
    return Path(__file__).resolve().parent / "_native"


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _is_console_script(path: Path) -> bool:
    """True for the `streamscope` launcher pip writes (a Python script that
    runs main() below): taking it for the CLI would run itself."""
    try:
        with open(path, "rb") as f:
            first = f.readline(512)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def find_cli() -> Path:
    """The streamscope binary: the one inside this package (a wheel), then
    $STREAMSCOPE_BIN, then PATH, then build/bin of a source checkout.
    Raises CliNotFoundError naming what was tried."""
    bundled = native_dir() / "bin" / "streamscope"
    if _executable(bundled):
        return bundled
    tried = [f"{bundled} (not installed from a wheel)"]
    env = os.environ.get("STREAMSCOPE_BIN")
    if env:
        p = Path(env)
        if _executable(p):
            return p
        tried.append(f"STREAMSCOPE_BIN={env} (not an executable file)")
    else:
        tried.append("STREAMSCOPE_BIN (unset)")
    on_path = shutil.which("streamscope")
    if on_path and not _is_console_script(Path(on_path)):
        return Path(on_path)
    tried.append("PATH")
    root = source_checkout()
    if root is not None:
        p = root / "build" / "bin" / "streamscope"
        if _executable(p):
            return p
        tried.append(str(p))
    raise CliNotFoundError(
        "cannot find the streamscope CLI; tried " + ", ".join(tried)
        + ". Install the wheel (tools/build_wheel.sh), build the CLI (tools/build.sh) "
        "or set STREAMSCOPE_BIN to its path.")


def main() -> None:
    """The `streamscope` console script: runs the CLI with this process'
    arguments, environment and exit code (the process becomes the CLI)."""
    import sys
    try:
        cli = find_cli()
    except CliNotFoundError as e:
        sys.exit(f"streamscope: {e}")
    os.execv(cli, [str(cli)] + sys.argv[1:])


def error_line(stderr: str) -> str:
    """The CLI's error: its last line that is not a warning or a note (the
    error comes last), without the "streamscope: " prefix."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ": warning: " not in ln and ": note: " not in ln]
    line = (errors or lines or [""])[-1].strip()
    return line[len("streamscope: "):] if line.startswith("streamscope: ") else line


def cli_error(command: str, returncode: int, stderr: str) -> StreamscopeError:
    """The package's exception for a failed `streamscope COMMAND`: the class
    of its exit code (errors.ERROR_OF_EXIT_CODE), a one-line message with
    the CLI's own words, the exit code and the whole stderr."""
    what = EXIT_CODES.get(returncode, "failed")
    cls = ERROR_OF_EXIT_CODE.get(returncode, StreamscopeError)
    line = error_line(stderr)
    if cls is OutputError and ": exists; " in line:
        cls = OutputExistsError
    return cls(f"`streamscope {command}` exited {returncode} ({what}): {line}", exit_code=returncode, stderr=stderr)


def run_cli(args: Iterable[str], *, capture_stdout: bool = True) -> subprocess.CompletedProcess:
    """Runs `streamscope ARGS...`; raises the package's exception for its
    exit code (errors.py), with the CLI's own message, when it fails."""
    argv = [str(find_cli())] + [str(a) for a in args]
    proc = subprocess.run(argv, stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise cli_error(" ".join(argv[1:]), proc.returncode, proc.stderr.decode("utf-8", "replace").strip())
    return proc
