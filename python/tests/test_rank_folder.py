"""A folder of rank traces opens in one call, in rank order, as HTA's
TraceAnalysis(trace_dir=...) takes one."""
import shutil

import pytest

import streamscope


def test_traces_come_in_the_rank_they_recorded(copy_trace, data, tmp_path):
    for name, rank in [("a", 1), ("b", 0)]:
        copy_trace(data / ("overlapped.sqlite" if rank else "sequential.sqlite"), tmp_path / f"{name}.sqlite",
                   lambda spec, rank=rank: spec["metadata"].update({"env:RANK": str(rank)}))
    ranks = streamscope.open_ranks(tmp_path)
    assert [t.rank for t in ranks] == [0, 1]
    assert [t.path.name for t in ranks] == ["b.sqlite", "a.sqlite"]


def test_without_ranks_the_file_names_give_the_order(cli, data, tmp_path):
    for i in (10, 2, 1):
        shutil.copy(data / "overlapped.sqlite", tmp_path / f"rank{i}.sqlite")
    (tmp_path / "notes.txt").write_text("not a trace\n")
    assert [t.path.name for t in streamscope.open_ranks(tmp_path)] == ["rank1.sqlite", "rank2.sqlite",
                                                                       "rank10.sqlite"]


def test_the_ranks_go_to_report_traces_and_analyze(cli, data, tmp_path):
    shutil.copy(data / "overlapped.sqlite", tmp_path / "rank0.sqlite")
    shutil.copy(data / "sequential.sqlite", tmp_path / "rank1.sqlite")
    ranks = streamscope.open_ranks(tmp_path)
    report = streamscope.report_traces(ranks)
    assert sorted(report.windows["trace_index"].unique()) == [0, 1]
    assert len(report.ranks) == 2
    assert len(streamscope.ranks.analyze(ranks).ranks) == 2


def test_a_torch_trace_in_the_folder_is_read_too(cli, data, tmp_path):
    shutil.copy(data / "torch" / "torch_two_streams.json.gz", tmp_path / "rank0.json.gz")
    ranks = streamscope.open_ranks(tmp_path)
    assert len(ranks) == 1 and len(ranks[0].ops) > 0


def test_a_folder_without_traces_or_a_missing_one_is_the_packages_error(tmp_path):
    with pytest.raises(streamscope.TraceNotFoundError, match="no trace files"):
        streamscope.open_ranks(tmp_path)
    with pytest.raises(streamscope.TraceNotFoundError, match="no such folder"):
        streamscope.open_ranks(tmp_path / "missing")
