"""The installed package finds its own CLI and collector, and the
`streamscope` console script is that CLI. The wheel checks run where
tools/test.sh installed the wheel into a clean venv
(STREAMSCOPE_EXPECT_WHEEL=1); the rest run everywhere."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import streamscope
from streamscope import _cli

from conftest import DATA, REPO

wheel_only = pytest.mark.skipif(os.environ.get("STREAMSCOPE_EXPECT_WHEEL") != "1",
                                reason="runs against a package installed from the wheel (tools/test.sh)")

# What the wheel's binaries may link: glibc's libraries, the C++ runtime,
# SQLite and zlib (Abseil and protobuf are linked in).
COMMON_LIBRARIES = ("libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux",
                    "libsqlite3.so.0", "libz.so.1", "libgcc_s.so.1", "libstdc++.so.6")


def needed(path):
    out = subprocess.run(["readelf", "-d", str(path)], check=True, stdout=subprocess.PIPE, text=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def console_script():
    return Path(sys.executable).parent / "streamscope"


@wheel_only
def test_the_installed_package_runs_the_cli_inside_it():
    assert REPO not in Path(streamscope.__file__).resolve().parents
    assert streamscope.find_cli() == _cli.native_dir() / "bin" / "streamscope"
    assert "STREAMSCOPE_BIN" not in os.environ
    assert shutil.which("streamscope") is None  # nothing on PATH: the package alone suffices


@wheel_only
def test_the_bundled_cli_needs_only_libraries_every_linux_has():
    if shutil.which("readelf") is None:
        pytest.skip("no readelf")
    libs = needed(streamscope.find_cli())
    assert libs, "a dynamically linked CLI names its libraries"
    assert [lib for lib in libs if not lib.startswith(COMMON_LIBRARIES)] == []


@wheel_only
def test_a_wheel_with_a_collector_records_with_it(monkeypatch):
    bundled = _cli.native_dir() / "lib" / "libstreamscope_collector.so"
    if not bundled.is_file():
        pytest.skip("this wheel was built without the CUDA toolkit: no collector inside")
    monkeypatch.delenv("STREAMSCOPE_COLLECTOR", raising=False)
    assert streamscope.find_collector() == bundled
    if shutil.which("readelf"):
        assert [lib for lib in needed(bundled) if not lib.startswith(COMMON_LIBRARIES)] == []


@wheel_only
def test_the_console_script_is_the_cli_with_its_exit_codes(tmp_path):
    script = console_script()
    assert script.is_file()
    version = subprocess.run([str(script), "--version"], stdout=subprocess.PIPE, text=True)
    assert version.returncode == 0 and version.stdout.strip() == streamscope.__version__
    missing = subprocess.run([str(script), "report", str(tmp_path / "absent.sqlite")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert missing.returncode == 3  # file not found, as the CLI itself exits
    report = subprocess.run([str(script), "report", str(DATA / "overlapped.sqlite"), "--format", "json"],
                            stdout=subprocess.PIPE, text=True, check=True)
    assert report.stdout == subprocess.run([str(streamscope.find_cli()), "report", str(DATA / "overlapped.sqlite"),
                                            "--format", "json"], stdout=subprocess.PIPE, text=True).stdout


def test_the_console_script_on_path_is_not_taken_for_the_cli(tmp_path, monkeypatch):
    launcher = tmp_path / "streamscope"
    launcher.write_text(f"#!{sys.executable}\nfrom streamscope._cli import main\nmain()\n")
    launcher.chmod(0o755)
    monkeypatch.setattr(_cli, "native_dir", lambda: tmp_path / "_native")
    monkeypatch.setattr(_cli, "source_checkout", lambda: None)
    monkeypatch.delenv("STREAMSCOPE_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(streamscope.CliNotFoundError, match="tried .*_native.*STREAMSCOPE_BIN \\(unset\\), PATH"):
        streamscope.find_cli()


def test_the_package_binary_comes_before_streamscope_bin(tmp_path, monkeypatch):
    native = tmp_path / "_native"
    (native / "bin").mkdir(parents=True)
    own = native / "bin" / "streamscope"
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    other = tmp_path / "other"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    monkeypatch.setattr(_cli, "native_dir", lambda: native)
    monkeypatch.setenv("STREAMSCOPE_BIN", str(other))
    assert streamscope.find_cli() == own
