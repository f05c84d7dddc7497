"""trace.instances(): the per-step breakdown as a DataFrame, the same rows as
the CLI's JSON, with a planted slow step found and explained."""
import json
import subprocess

import pytest

import streamscope

from conftest import DATA


@pytest.fixture
def slow_step(cli, tmp_path):
    """Ten NVTX 'step' instances; step 6 first spends 400 us in 'prepare'
    (tests/data/synth/slow_step.json)."""
    path = tmp_path / "slow_step.sqlite"
    subprocess.run([str(cli), "synth", str(DATA / "synth" / "slow_step.json"), "-o", str(path)], check=True)
    return streamscope.open(path)


def test_the_planted_step_alone_is_slow_and_its_largest_cause_is_the_planted_one(slow_step):
    steps = slow_step.instances()
    assert list(steps["instance"]) == list(range(1, 11))
    slow = steps[steps["slow"] == 1]
    assert list(slow["instance"]) == [6]
    row = slow.iloc[0]
    assert row["duration_ns"] == 562_000
    assert row["busy_ns"] == 150_000
    assert row["idle_ns"] == 412_000
    assert row["top_cause"] == "host_nvtx_range"
    assert row["top_nvtx_name"] == "prepare"
    assert row["top_cause_ns"] == 404_000
    assert steps["duration_ns"].median() == 162_000


def test_rows_equal_the_clis_json(cli, data):
    trace = streamscope.open(data / "torch" / "torch_two_streams.sqlite")
    steps = trace.instances()
    out = subprocess.run([str(cli), "report", str(trace.path), "--format", "json", "--section", "instances"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    rows = json.loads(out)["traces"][0]["windows"][0]["instances"]["rows"]
    assert len(steps) == len(rows) == 20
    for (_, frame_row), json_row in zip(steps.iterrows(), rows):
        for key in ("instance", "start_ns", "end_ns", "duration_ns", "busy_ns", "idle_ns", "overlap_ns",
                    "overlap_possible_ns"):
            assert frame_row[key] == json_row[key], key
        assert bool(frame_row["slow"]) == json_row["slow"]


def test_a_trace_without_repeated_instances_has_an_empty_typed_frame(cli, data):
    steps = streamscope.open(data / "nsys" / "small-rtx3060-nsys2025.sqlite").instances()
    assert steps.empty
    assert str(steps["duration_ns"].dtype) == "Int64"
    assert str(steps["top_cause"].dtype) == "string"
