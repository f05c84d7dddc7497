"""trace.report / trace.diagnose: the C++ analyzer's results as DataFrames,
the same figures as the CLI's JSON."""
import json
import subprocess

import pytest

import streamscope


def cli_json(cli, *args):
    out = subprocess.run([str(cli), *map(str, args), "--format", "json"], check=True, stdout=subprocess.PIPE)
    return json.loads(out.stdout)


def pair_row(report, pair, device=0, window=0):
    p = report.overlap_pairs
    rows = p[(p["pair"] == pair) & (p["device_id"] == device) & (p["window_index"] == window)]
    assert len(rows) == 1, p
    return rows.iloc[0]


def test_overlapped_copies_hid_behind_compute_sequential_ones_did_not(overlapped, sequential):
    assert pair_row(overlapped.report(), "compute|H2D")["overlapped_ns"] > 0
    assert pair_row(sequential.report(), "compute|H2D")["overlapped_ns"] == 0
    assert sequential.report().overlap_intervals.query("pair == 'compute|H2D'").empty


def test_overlap_pairs_equal_the_clis_json(cli, data, overlapped):
    report = overlapped.report("whole")
    j = cli_json(cli, "report", data / "overlapped.sqlite", "--window", "whole")
    device = j["traces"][0]["windows"][0]["overlap"]["devices"][0]
    assert len(device["pairs"]) > 0
    for p in device["pairs"]:
        row = pair_row(report, p["pair"], device=device["device_id"])
        assert row["overlapped_ns"] == p["overlapped_ns"]
        assert row["possible_ns"] == p["possible_ns"]
        assert row["interval_count"] == p["interval_count"]
    total_intervals = device["intervals_total"]
    assert len(report.overlap_intervals) == total_intervals


def test_idle_figures_equal_the_clis_json(cli, data, overlapped):
    report = overlapped.report(gap_threshold_us=1)
    j = cli_json(cli, "report", data / "overlapped.sqlite", "--gap-threshold", "1")
    idle = j["traces"][0]["windows"][0]["idle_gaps"]["devices"][0]
    row = report.idle_devices.iloc[0]
    for key in ("window_ns", "busy_ns", "idle_ns", "gap_count", "listed_gap_count", "listed_gap_ns"):
        assert row[key] == idle[key], key
    gaps = report.gaps
    assert len(gaps) == idle["listed_gap_count"]
    assert gaps["length_ns"].sum() == idle["listed_gap_ns"]
    assert "primary_cause" in gaps.columns
    # The worst gaps the cause analysis explains carry their cause.
    assert gaps["primary_cause"].notna().any()


def test_gap_causes_add_up_to_the_idle_time(cpu_starved):
    report = cpu_starved.report()
    causes = report.gap_causes
    idle = report.idle_devices
    for device, group in causes.groupby("device_id"):
        assert group["ns"].sum() == idle.loc[idle["device_id"] == device, "idle_ns"].iloc[0]
    assert "cpu_starvation" in set(causes.loc[causes["cpu_starvation"] == 1, "cause"]) or \
        (causes["cpu_starvation"] == 1).any()


@pytest.fixture
def cpu_starved(cli, data):
    return streamscope.open(data / "cpu_starved.sqlite")


def test_every_analysis_table_is_there(overlapped, table_names):
    report = overlapped.report()
    names = report.table_names
    assert names == table_names
    for table in ("analysis_overlap_interval", "analysis_idle_gap", "analysis_gap_causes",
                  "analysis_hidden_sync", "analysis_launch_stats", "analysis_hazard"):
        assert table in names
    assert report["overlap_pair"] is report.overlap_pairs
    assert report.summary["format"] == "streamscope"
    with pytest.raises(KeyError, match="no analysis table"):
        report.table("nonsense")


def test_launch_stats_count_every_kernel_and_hidden_syncs_are_found(cli, data):
    trace = streamscope.open(data / "launch_individual.sqlite")
    stats = trace.report().launch_stats
    assert stats["count"].sum() == (trace.ops["op_table"] == "kernel").sum()
    assert stats["gpu_median_ns"].notna().all()
    calls = streamscope.open(data / "implicit_sync.sqlite").report().hidden_sync_calls
    assert not calls.empty
    assert (calls["waited_ns"] >= 0).all()


def test_findings_name_the_cause_with_its_saving(cli, data):
    report = streamscope.open(data / "pageable.sqlite").report(nvtx="measured")
    findings = report.findings
    assert not findings.empty
    primary = findings[findings["primary"]]
    assert list(primary["cause"]) == ["pageable_copies"]
    assert (primary["impact_ns"] > 0).all()
    assert primary["remedy"].str.len().gt(0).all()


def test_diagnose_defaults_to_the_default_window(cli, data):
    d = streamscope.open(data / "pageable.sqlite").diagnose()
    j = cli_json(cli, "diagnose", data / "pageable.sqlite")
    assert d.findings["cause"].tolist() == [f["cause"] for f in j["traces"][0]["windows"][0]["findings"]]
    assert d.primary["cause"].tolist() == ["pageable_copies"]


def test_an_nvtx_window_and_explicit_times(overlapped):
    measured = overlapped.report(nvtx="measured")
    w = measured.windows.iloc[0]
    assert w["label"].startswith("measured") or "measured" in w["label"]
    whole = overlapped.report("whole").windows.iloc[0]  # explicit times count from the trace start
    start = int(w["start_ns"]) - int(whole["start_ns"])
    explicit = overlapped.report((start, start + int(w["length_ns"])))
    assert int(explicit.windows.iloc[0]["start_ns"]) == int(w["start_ns"])
    assert int(explicit.windows.iloc[0]["length_ns"]) == int(w["length_ns"])
    assert pair_row(explicit, "compute|H2D")["overlapped_ns"] == pair_row(measured, "compute|H2D")["overlapped_ns"]


def test_a_window_that_selects_nothing_is_the_clis_error(overlapped):
    with pytest.raises(streamscope.StreamscopeError, match="measured") as e:
        overlapped.report(nvtx="no_such_range")
    assert e.value.exit_code == 7


def test_several_ranks_give_the_clis_cross_rank_comparison(cli, data):
    paths = [data / "overlapped.sqlite", data / "sequential.sqlite"]
    report = streamscope.report_traces(paths)
    j = cli_json(cli, "report", *paths)
    ranks = report.ranks
    assert ranks["rank"].tolist() == [0, 1]
    for row, expected in zip(ranks.to_dict("records"), j["combined"]["ranks"]["ranks"]):
        for key in ("busy_ns", "idle_ns", "compute_ns", "overlapped_ns", "waited_ns"):
            assert row[key] == expected[key], key
    assert report.skews.empty  # no NCCL collectives in these traces
    # Every table tells the traces apart.
    assert sorted(report.windows["trace_index"]) == [0, 1]
    pairs = report.overlap_pairs.query("pair == 'compute|H2D'").set_index("trace_index")["overlapped_ns"]
    assert pairs[0] > 0 and pairs[1] == 0


def test_columns_say_what_they_hold(cpu_starved):
    # One vocabulary (analyzer/README.md): a stream is cited by id, a call
    # by api_name, an NVTX range by nvtx_name; no column is called detail.
    report = cpu_starved.report()
    assert {"stream_id_a", "stream_id_b"} <= set(report.overlap_stream_pairs.columns)
    assert {"op_a_stream_id", "op_b_stream_id"} <= set(report.hazards.columns)
    for frame in (report.gap_causes, report.worst_gap_parts):
        assert {"api_name", "nvtx_name"} <= set(frame.columns)
    causes = report.gap_causes
    assert "host_prepare" in set(causes.loc[causes["cause"] == "host_nvtx_range", "nvtx_name"])
    assert causes.loc[causes["cause"] != "host_nvtx_range", "nvtx_name"].isna().all()
    for name, frame in report.tables().items():
        assert "detail" not in frame.columns, name
        assert not {"stream_a", "stream_b"} & set(frame.columns), name


def test_sections_compute_only_their_tables_with_the_same_figures(overlapped):
    full = overlapped.report("whole")
    part = overlapped.report("whole", sections=["overlap"])
    assert "analysis_overlap_pair" in part.table_names
    assert "analysis_idle_gap" not in part.table_names
    assert "analysis_launch_stats" not in part.table_names
    assert part.overlap_pairs.equals(full.overlap_pairs)
    assert part.json["sections"] == ["overlap"]
    assert set(part.json["traces"][0]["windows"][0]) == {"index", "label", "start_ns", "end_ns", "length_ns",
                                                         "overlap"}
    with pytest.raises(ValueError):
        overlapped.report(sections=[])


def test_clip_cuts_a_window_to_the_trace(overlapped):
    whole = overlapped.report(window="whole").windows.iloc[0]
    clipped = overlapped.report(window=(0, 10**15), clip=True).windows.iloc[0]
    assert clipped["label"].endswith("clipped to the trace")
    assert (clipped["start_ns"], clipped["end_ns"]) == (whole["start_ns"], whole["end_ns"])
