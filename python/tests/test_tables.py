"""Every analysis table in one file each: CSV from the CLI, Parquet from
pyarrow; any of them loads in one call."""
import subprocess
import sys

import pandas as pd
import pytest

import streamscope


def test_the_cli_writes_one_csv_per_table_with_a_header_row(cli, data, tmp_path, table_names):
    out = tmp_path / "tables"
    subprocess.run([str(cli), "report", str(data / "overlapped.sqlite"), "--format", "csv", "--output-dir", str(out)],
                   check=True)
    files = sorted(out.glob("*.csv"))
    assert [f.stem for f in files] == table_names
    pairs = pd.read_csv(out / "analysis_overlap_pair.csv")
    assert list(pairs.columns[:3]) == ["window_index", "device_id", "pair"]
    assert (pairs.loc[pairs["pair"] == "compute|H2D", "overlapped_ns"] > 0).all()
    for f in files:
        assert f.read_text().splitlines()[0].startswith(("window_index,", "key,"))


def test_the_cli_refuses_to_replace_tables_without_force(cli, data, tmp_path):
    out = tmp_path / "tables"
    args = [str(cli), "report", str(data / "overlapped.sqlite"), "--format", "csv", "--output-dir", str(out)]
    subprocess.run(args, check=True)
    (out / "analysis_window.csv").write_text("mine\n")
    again = subprocess.run(args, stderr=subprocess.PIPE, text=True)
    assert again.returncode == 9
    assert "exists" in again.stderr and "--force" in again.stderr
    assert (out / "analysis_window.csv").read_text() == "mine\n"
    subprocess.run(args + ["--force"], check=True)
    assert (out / "analysis_window.csv").read_text().startswith("window_index,label,")


def test_csv_to_stdout_keeps_the_stream_form(cli, data, table_names):
    out = subprocess.run([str(cli), "report", str(data / "overlapped.sqlite"), "--format", "csv"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    assert out.count("# table: ") == len(table_names)
    assert out.startswith("# trace: ")


def test_several_traces_share_a_file_behind_trace_index(cli, data, tmp_path):
    written = streamscope.tables([data / "overlapped.sqlite", data / "sequential.sqlite"], out_dir=tmp_path)
    windows = pd.read_csv(written["analysis_window"])
    assert list(windows.columns[:2]) == ["trace_index", "window_index"]
    assert sorted(windows["trace_index"]) == [0, 1]


def test_parquet_tables_load_in_one_call_with_exact_integers(cli, data, tmp_path, table_names):
    pytest.importorskip("pyarrow")
    written = streamscope.tables(data / "overlapped.sqlite", format="parquet", out_dir=tmp_path / "pq")
    assert sorted(written) == table_names
    pairs = pd.read_parquet(written["analysis_overlap_pair"])
    report = streamscope.open(data / "overlapped.sqlite").report()
    expected = report.overlap_pairs
    assert pairs["overlapped_ns"].tolist() == expected["overlapped_ns"].tolist()
    gaps = pd.read_parquet(written["analysis_idle_gap"])
    assert str(gaps["start_ns"].dtype) in ("Int64", "int64")
    assert gaps["start_ns"].tolist() == report.idle_gaps["start_ns"].tolist()  # > 2**53, exact


def test_parquet_refuses_to_replace_tables_without_force(cli, data, tmp_path, table_names):
    pytest.importorskip("pyarrow")
    streamscope.tables(data / "overlapped.sqlite", format="parquet", out_dir=tmp_path)
    with pytest.raises(FileExistsError, match="force"):
        streamscope.tables(data / "overlapped.sqlite", format="parquet", out_dir=tmp_path)
    assert len(streamscope.tables(data / "overlapped.sqlite", format="parquet", out_dir=tmp_path, force=True)) == len(table_names)


def test_duckdb_and_polars_read_a_table_in_one_call(cli, data, tmp_path):
    pytest.importorskip("pyarrow")
    written = streamscope.tables(data / "overlapped.sqlite", format="parquet", out_dir=tmp_path)
    target = written["analysis_overlap_pair"]
    duckdb = pytest.importorskip("duckdb")
    n = duckdb.sql(f"SELECT COUNT(*) FROM '{target}'").fetchall()[0][0]
    assert n == len(pd.read_parquet(target))
    pl = pytest.importorskip("polars")
    assert pl.read_parquet(target).height == n
    # The CLI's CSV folder loads in one call too.
    csv = streamscope.tables(data / "overlapped.sqlite", out_dir=tmp_path / "csv")["analysis_overlap_pair"]
    assert pl.read_csv(csv)["overlapped_ns"].to_list() == pd.read_parquet(target)["overlapped_ns"].tolist()
    assert duckdb.sql(f"SELECT COUNT(*) FROM read_csv_auto('{csv}')").fetchall()[0][0] == n


def test_the_console_script_writes_parquet(cli, data, tmp_path, table_names):
    pytest.importorskip("pyarrow")
    out = tmp_path / "t"
    run = subprocess.run([sys.executable, "-m", "streamscope.table_files", str(data / "overlapped.sqlite"),
                          "--nvtx", "measured", "--format", "parquet", "--output-dir", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == len(table_names)
    windows = pd.read_parquet(out / "analysis_window.parquet")
    assert windows["label"].str.contains("measured").all()


def test_the_console_script_passes_on_the_clis_exit_code(cli, data, tmp_path):
    run = subprocess.run([sys.executable, "-m", "streamscope.table_files", str(data / "overlapped.sqlite"),
                          "--nvtx", "nope", "--format", "csv", "--output-dir", str(tmp_path)],
                         stderr=subprocess.PIPE, text=True)
    assert run.returncode == 7
    assert run.stderr.startswith("streamscope-tables: ")


def test_the_installed_console_script_is_on_the_venvs_path(cli, data, tmp_path):
    from pathlib import Path
    script = Path(sys.executable).parent / "streamscope-tables"
    if not script.exists():
        pytest.skip("the package is not installed in this interpreter's environment")
    run = subprocess.run([str(script), str(data / "sequential.sqlite"), "--format", "csv", "--output-dir",
                          str(tmp_path)],
                         stdout=subprocess.PIPE, text=True)
    assert run.returncode == 0
    assert (tmp_path / "analysis_overlap_pair.csv").exists()


def test_streamscope_tables_stays_the_function_after_trace_tables(cli, data, tmp_path):
    # A submodule named like a package attribute would replace it on import.
    streamscope.open(data / "sequential.sqlite").tables(out_dir=tmp_path / "a")
    assert callable(streamscope.tables)
    assert callable(streamscope.report_traces) and callable(streamscope.record)


BUNDLED = ["overlapped", "sequential", "pageable", "cpu_starved", "launch_graph", "racy"]


def bundled_traces(data):
    return [data / f"{n}.sqlite" for n in BUNDLED if (data / f"{n}.sqlite").exists()]


def test_every_table_has_one_typed_schema_in_every_bundled_trace(cli, data, tmp_path):
    import json
    schemas = {}
    for i, trace in enumerate(sorted(data.glob("*.sqlite")) + sorted((data / "nsys").glob("*.sqlite"))):
        out = tmp_path / str(i)
        subprocess.run([str(cli), "report", str(trace), "--format", "csv", "--output-dir", str(out)], check=True,
                       stderr=subprocess.DEVNULL)
        package = json.loads((out / "datapackage.json").read_text())
        for r in package["resources"]:
            fields = [(f["name"], f["type"]) for f in r["schema"]["fields"]]
            assert schemas.setdefault(r["name"], (fields, trace))[0] == fields, \
                f"{r['name']}: {trace.name} and {schemas[r['name']][1].name} disagree"
    assert len(schemas) >= 25


def test_an_empty_table_reads_with_its_types(cli, data, tmp_path):
    written = streamscope.tables(data / "sequential.sqlite", out_dir=tmp_path)
    from streamscope.report import read_table_csv
    frames = {name: read_table_csv(path) for name, path in written.items()}
    empty = [name for name, f in frames.items() if f.empty]
    assert empty, "a bundled trace with an empty table is needed here"
    for name in empty:
        assert "object" not in {str(t) for t in frames[name].dtypes}, name
    assert str(frames["analysis_window"]["start_ns"].dtype) == "Int64"


def test_one_table_of_several_traces_reads_in_one_call_with_pandas_polars_and_duckdb(cli, data, tmp_path):
    pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    traces = bundled_traces(data)
    per_trace = {t.stem: streamscope.tables(t, format="parquet", out_dir=tmp_path / t.stem) for t in traces}
    mixed = 0  # tables empty in one trace and not in another: where untyped empty columns broke polars
    for table in per_trace[traces[0].stem]:
        files = [str(per_trace[t.stem][table]) for t in traces]
        rows = [len(pd.read_parquet(f)) for f in files]
        mixed += 0 < rows.count(0) < len(rows)
        pattern = str(tmp_path / "*" / f"{table}.parquet")
        assert len(pd.read_parquet(files)) == sum(rows), table
        assert pl.read_parquet(pattern).height == sum(rows), table
        assert duckdb.sql(f"SELECT COUNT(*) FROM read_parquet('{pattern}')").fetchall()[0][0] == sum(rows), table
    assert mixed >= 1
    gaps = pl.read_parquet(str(tmp_path / "*" / "analysis_idle_gap.parquet"))
    assert gaps.schema["start_ns"] == pl.Int64
