"""streamscope.record: the ctypes plumbing around the collector's C entry
points (the GPU recording itself is checked on the GPU machine:
tools/gpu/python_record.sh)."""
import shutil
import subprocess

import pytest

import streamscope
from streamscope import _cli

FAKE_COLLECTOR = r"""
#include <stdio.h>
#include <stdlib.h>
static const char* log_path(void) { return getenv("FAKE_COLLECTOR_LOG"); }
static void note(const char* what, const char* a, const char* b) {
  FILE* f = fopen(log_path(), "a");
  fprintf(f, "%s %s %s\n", what, a ? a : "(null)", b ? b : "(null)");
  fclose(f);
}
int streamscope_record_start(const char* output_path, const char* options) {
  note("start", output_path, options);
  const char* rc = getenv("FAKE_COLLECTOR_START_RC");
  return rc ? atoi(rc) : 0;
}
int streamscope_record_stop(void) {
  note("stop", 0, 0);
  const char* rc = getenv("FAKE_COLLECTOR_STOP_RC");
  return rc ? atoi(rc) : 0;
}
"""


@pytest.fixture(scope="session")
def fake_collector(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the fake collector")
    d = tmp_path_factory.mktemp("fake")
    (d / "fake.c").write_text(FAKE_COLLECTOR)
    lib = d / "libfake_collector.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(d / "fake.c")], check=True)
    return lib


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_COLLECTOR_LOG", str(path))
    return path


def calls(log):
    return log.read_text().splitlines() if log.exists() else []


def test_a_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("STREAMSCOPE_COLLECTOR", str(tmp_path / "libstreamscope_collector.so"))
    monkeypatch.setattr(_cli, "source_checkout", lambda: None)
    monkeypatch.setattr(_cli, "native_dir", lambda: tmp_path / "_native")  # as if not from a wheel
    monkeypatch.setenv("STREAMSCOPE_BIN", str(tmp_path / "no-cli"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(streamscope.CollectorError, match="cannot find libstreamscope_collector.so.*STREAMSCOPE_COLLECTOR="):
        with streamscope.record(tmp_path / "t.sqlite"):
            pass


def test_a_library_without_the_entry_points_is_named(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build an old collector")
    (tmp_path / "old.c").write_text("int InitializeInjection(void) { return 1; }\n")
    lib = tmp_path / "libold_collector.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "old.c")], check=True)
    with pytest.raises(streamscope.CollectorError, match="predates in-process recording"):
        with streamscope.record(tmp_path / "t.sqlite", library=lib):
            pass


def test_a_file_that_is_no_library_is_named(tmp_path):
    junk = tmp_path / "libstreamscope_collector.so"
    junk.write_text("not ELF")
    with pytest.raises(streamscope.CollectorError, match="cannot load the collector library"):
        with streamscope.record(tmp_path / "t.sqlite", library=junk):
            pass


def test_the_context_manager_starts_and_stops_around_the_block(fake_collector, log, tmp_path):
    out = tmp_path / "sub" / "trace.sqlite"
    with streamscope.record(out, kinds="+memory", library=fake_collector) as r:
        assert calls(log) == [f"start {out} kinds=+memory"]
    assert calls(log) == [f"start {out} kinds=+memory", "stop (null) (null)"]
    assert r.path == out
    assert out.parent.is_dir()


def test_default_options_are_null(fake_collector, log, tmp_path):
    with streamscope.record(tmp_path / "t.sqlite", library=fake_collector):
        pass
    assert calls(log)[0].endswith(" (null)")


def test_the_decorator_records_every_call(fake_collector, log, tmp_path):
    @streamscope.record(tmp_path / "t.sqlite", kinds=["kernel", "memcpy"], library=fake_collector)
    def work(x):
        return x * 2

    assert work(21) == 42
    assert work(1) == 2
    assert calls(log) == [f"start {tmp_path / 't.sqlite'} kinds=kernel,memcpy", "stop (null) (null)"] * 2


def test_a_failing_start_raises_and_records_nothing(fake_collector, log, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_COLLECTOR_START_RC", "3")
    ran = []
    with pytest.raises(streamscope.CollectorError, match="returned 3") as e:
        with streamscope.record(tmp_path / "t.sqlite", library=fake_collector):
            ran.append(1)
    assert e.value.exit_code == 3
    assert ran == []
    assert len(calls(log)) == 1  # no stop without a start
    # A failed start leaves no recording behind: the next one may start.
    monkeypatch.delenv("FAKE_COLLECTOR_START_RC")
    with streamscope.record(tmp_path / "t.sqlite", library=fake_collector):
        pass


def test_a_failing_stop_raises(fake_collector, log, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_COLLECTOR_STOP_RC", "5")
    with pytest.raises(streamscope.CollectorError, match="streamscope_record_stop.*returned 5"):
        with streamscope.record(tmp_path / "t.sqlite", library=fake_collector):
            pass


def test_an_exception_in_the_block_still_stops_and_propagates(fake_collector, log, tmp_path):
    with pytest.raises(ZeroDivisionError):
        with streamscope.record(tmp_path / "t.sqlite", library=fake_collector):
            1 / 0
    assert calls(log)[-1] == "stop (null) (null)"


def test_recordings_cannot_nest(fake_collector, log, tmp_path):
    with streamscope.record(tmp_path / "a.sqlite", library=fake_collector):
        with pytest.raises(streamscope.CollectorError, match="cannot nest"):
            with streamscope.record(tmp_path / "b.sqlite", library=fake_collector):
                pass
    assert [c.split()[0] for c in calls(log)] == ["start", "stop"]


def test_the_library_is_found_through_the_environment(fake_collector, monkeypatch):
    monkeypatch.setenv("STREAMSCOPE_COLLECTOR", str(fake_collector))
    assert streamscope.find_collector() == fake_collector


def test_capture_range_and_start_paused_reach_the_collector_as_options(fake_collector, log, tmp_path):
    out = tmp_path / "t.sqlite"
    with streamscope.record(out, kinds="+memory", capture_range="nvtx:step@100-110", start_paused=True,
                            library=fake_collector):
        pass
    assert calls(log)[0] == f"start {out} kinds=+memory; capture_range=nvtx:step@100-110; start_paused=1"
    with pytest.raises(ValueError, match="capture_range"):
        streamscope.record(out, capture_range="nvtx:a;b")
    with pytest.raises(ValueError, match="not both"):
        streamscope.record(out, capture_range="cudaProfilerApi", options="kinds=all")


def test_the_flight_recorder_and_its_trigger_reach_the_collector_as_options(fake_collector, log, tmp_path):
    out = tmp_path / "t.sqlite"
    with streamscope.record(out, flight_recorder="30s", trigger="nvtx:step>2x", library=fake_collector):
        pass
    assert calls(log)[0] == f"start {out} flight_recorder=30s; trigger=nvtx:step>2x"
    with pytest.raises(ValueError, match="trigger needs flight_recorder"):
        streamscope.record(out, trigger="nvtx:step>2x")


def test_kinds_and_options_are_checked(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        streamscope.record(tmp_path / "t.sqlite", kinds="all", options="kinds=all")
    with pytest.raises(ValueError, match="STREAMSCOPE_KINDS"):
        streamscope.record(tmp_path / "t.sqlite", kinds="kernel;rm")


def test_n_in_the_path_numbers_the_recordings_of_a_decorated_function(fake_collector, log, tmp_path):
    @streamscope.record(tmp_path / "step-{n}.sqlite", library=fake_collector)
    def step():
        pass

    step()
    step()
    starts = [c.split()[1] for c in calls(log) if c.startswith("start")]
    assert starts == [str(tmp_path / "step-1.sqlite"), str(tmp_path / "step-2.sqlite")]


def test_importing_record_needs_neither_pandas_nor_matplotlib():
    import subprocess
    import sys
    code = ("import sys; import streamscope; streamscope.record; streamscope.find_collector; "
            "assert 'pandas' not in sys.modules and 'matplotlib' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
