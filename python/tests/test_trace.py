"""streamscope.open: the trace's records as DataFrames, exactly as stored."""
import sqlite3

import pytest

import streamscope


def count(path, sql):
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_ops_hold_every_kernel_copy_and_memset_in_start_order(data):
    trace = streamscope.open(data / "overlapped.sqlite")
    path = data / "overlapped.sqlite"
    ops = trace.ops
    assert len(ops) == count(path, "SELECT (SELECT COUNT(*) FROM kernel) + (SELECT COUNT(*) FROM memcpy) "
                                   "+ (SELECT COUNT(*) FROM memset)")
    assert ops["start_ns"].is_monotonic_increasing
    assert (ops["duration_ns"] == ops["end_ns"] - ops["start_ns"]).all()
    assert set(ops["category"]) == {"compute", "H2D", "D2H", "memset"}
    assert (ops.loc[ops["category"] == "H2D", "kind"] == "H2D").all()
    first_kernel = ops[ops["op_table"] == "kernel"].sort_values("op_id").iloc[0]
    name = count(path, "SELECT s.value FROM kernel k JOIN string s ON s.id = k.name_id ORDER BY k.id LIMIT 1")
    assert first_kernel["name"] == name


def test_times_are_exact_int64_nanoseconds(data):
    trace = streamscope.open(data / "overlapped.sqlite")
    ops = trace.ops
    assert ops["start_ns"].dtype == "Int64"
    # Trace-clock times exceed 2**53: a float column would lose nanoseconds.
    largest = count(data / "overlapped.sqlite", "SELECT MAX(end_ns) FROM kernel")
    assert int(ops.loc[ops["op_table"] == "kernel", "end_ns"].max()) == largest


def test_api_calls_nvtx_streams_and_devices(data):
    trace = streamscope.open(data / "overlapped.sqlite")
    assert len(trace.api_calls) == count(data / "overlapped.sqlite", "SELECT COUNT(*) FROM api_call")
    assert {"runtime"} <= set(trace.api_calls["domain"])
    assert "measured" in set(trace.nvtx_ranges["name"])
    assert "non_blocking" in set(trace.streams["kind"])
    assert trace.devices.loc[0, "name"] == "NVIDIA H200"
    assert trace.devices.loc[0, "copy_engines"] >= 1
    assert trace.metadata["trace_format"] == "streamscope"
    assert trace.pid == int(trace.metadata["pid"])


def test_ops_join_the_api_call_that_submitted_them(data):
    trace = streamscope.open(data / "overlapped.sqlite")
    joined = trace.ops.merge(trace.api_calls, on="correlation_id", suffixes=("", "_api"))
    copies = joined[joined["category"] == "H2D"]
    assert not copies.empty
    assert copies["name_api"].str.startswith("cudaMemcpy").all()


def test_sql_answers_any_question(data):
    trace = streamscope.open(data / "overlapped.sqlite")
    n = trace.sql("SELECT COUNT(*) AS n FROM kernel")["n"].iloc[0]
    assert n == (trace.ops["op_table"] == "kernel").sum()


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such trace"):
        streamscope.open(tmp_path / "nothing.sqlite")


def test_a_file_that_is_no_trace_gets_the_clis_message(cli, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("not a trace\n")
    with pytest.raises(streamscope.StreamscopeError) as e:
        streamscope.open(junk)
    assert e.value.exit_code == 4
    assert "notes.txt" in str(e.value)


def test_an_nsight_export_is_converted_through_the_cli(cli, data):
    export = data / "nsys" / "small-rtx3060-nsys2025.sqlite"
    assert not streamscope.is_streamscope_trace(export)
    trace = streamscope.open(export)
    assert trace.source_path == export
    assert trace.path != export and trace.path.exists()
    assert trace.format == "converted-nsys"
    assert len(trace.ops) > 0
    assert trace.ops["start_ns"].is_monotonic_increasing
    # The converted trace is analyzed like any other.
    assert not trace.report().windows.empty
    path = trace.path
    del trace
    import gc
    gc.collect()
    assert not path.exists()  # the temporary conversion went with the object


def test_a_file_that_is_not_sqlite_goes_through_streamscope_convert(cli, tmp_path):
    # torch.profiler traces (Chrome trace JSON) take this path: the CLI
    # converts them once its importer reads them; until then, and for a
    # file that is no trace at all, its own error comes back.
    trace_json = tmp_path / "trace.json"
    trace_json.write_text("{}")
    assert not streamscope.is_streamscope_trace(trace_json)
    with pytest.raises(streamscope.StreamscopeError, match=r"^`streamscope convert .*trace\.json"):
        streamscope.open(trace_json)


def test_a_folder_is_the_packages_error_in_one_line(tmp_path):
    with pytest.raises(streamscope.NotATraceError) as e:
        streamscope.open(tmp_path)
    assert str(e.value) == f"{tmp_path}: is a folder, not a trace file (streamscope.open_ranks reads a folder of rank traces)"
    assert isinstance(e.value, streamscope.StreamscopeError)


def test_a_missing_file_is_the_packages_error_and_a_file_not_found_error(tmp_path):
    with pytest.raises(streamscope.TraceNotFoundError) as e:
        streamscope.open(tmp_path / "nothing.sqlite")
    assert isinstance(e.value, FileNotFoundError)
    assert "\n" not in str(e.value)


def test_a_failed_cli_command_is_one_line_of_its_exit_codes_class(cli, overlapped):
    with pytest.raises(streamscope.WindowError) as e:
        overlapped.report(window=(0, 10**15))
    assert e.value.exit_code == 7
    assert "\n" not in str(e.value)
    assert "reaches outside the trace, which spans [+0 ns, +" in str(e.value)
