"""Shared fixtures: the repository's bundled traces and the streamscope CLI.

The CLI is the installed wheel's own, else this checkout's build/bin.
Tests that need the CLI are skipped when there is none, unless
STREAMSCOPE_REQUIRE_CLI=1 (tools/test.sh sets it): then they fail.
"""
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import matplotlib
import pytest

from streamscope import _cli

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"

if not os.environ.get("STREAMSCOPE_BIN") and not (_cli.native_dir() / "bin" / "streamscope").is_file():
    built = REPO / "build" / "bin" / "streamscope"
    if built.is_file():
        os.environ["STREAMSCOPE_BIN"] = str(built)


@pytest.fixture(scope="session")
def cli():
    import streamscope
    try:
        return streamscope.find_cli()
    except streamscope.CliNotFoundError as e:
        if os.environ.get("STREAMSCOPE_REQUIRE_CLI") == "1":
            pytest.fail(str(e))
        pytest.skip(str(e))


# The tables `streamscope synth` writes (besides metadata), in its order.
SYNTH_TABLES = ["string", "device", "device_link", "context", "stream", "thread", "kernel", "memcpy", "memset",
                "api_call", "sync", "nvtx_range", "nvtx_mark", "allocation", "memory_access", "event_op",
                "graph_execution", "collector_stat", "cupti_overhead"]


@pytest.fixture
def copy_trace(cli):
    """copy_trace(src, dst, edit=None): dst holds src's rows, changed by
    edit(spec) first, written by `streamscope synth` (tests write no SQL)."""
    def copy(src, dst, edit=None):
        con = sqlite3.connect(src)
        con.row_factory = sqlite3.Row
        spec = {"metadata": dict(con.execute("SELECT key, value FROM metadata").fetchall())}
        present = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in (t for t in SYNTH_TABLES if t in present):  # older traces lack some
            rows = [dict(r) for r in con.execute(f"SELECT * FROM {table}")]
            if rows:
                spec[table] = rows
        con.close()
        if edit:
            edit(spec)
        subprocess.run([str(cli), "synth", "-", "-o", str(dst)], input=json.dumps(spec), text=True, check=True)
        return dst
    return copy


@pytest.fixture
def data():
    return DATA


@pytest.fixture
def overlapped(cli):
    import streamscope
    return streamscope.open(DATA / "overlapped.sqlite")


@pytest.fixture
def sequential(cli):
    import streamscope
    return streamscope.open(DATA / "sequential.sqlite")


@pytest.fixture(scope="session")
def table_names(cli):
    """The analysis tables the CLI's stream form prints for a bundled trace
    (so that a table added to the analyzer does not break these tests)."""
    import re
    import subprocess
    out = subprocess.run([str(cli), "report", str(DATA / "overlapped.sqlite"), "--format", "csv"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    names = re.findall(r"^# table: (\S+)$", out, flags=re.M)
    assert len(names) >= 25
    return sorted(names)
