"""Shared fixtures: the repository's bundled traces and the streamscope CLI.

The CLI is the installed wheel's own, else this checkout's build/bin.
Tests that need the CLI are skipped when there is none, unless
STREAMSCOPE_REQUIRE_CLI=1 (tools/test.sh sets it): then they fail.
"""
import os
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
