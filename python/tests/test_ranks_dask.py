"""Many ranks on Dask: synthetic rank traces with planted clock
offsets (up to 3 s, per host) and planted stragglers, analyzed on a
LocalCluster; the figures equal `streamscope report`'s."""
import json
import subprocess
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "tools" / "dev"))
import gen_rank_traces  # noqa: E402

distributed = pytest.importorskip("distributed")

STEPS = 60


@pytest.fixture(scope="session")
def steps_run(tmp_path_factory):
    """8 ranks on 4 hosts; rank 5 straggles in steps 0-29, rank 2 in 30-59."""
    out = tmp_path_factory.mktemp("steps_run")
    paths, truth = gen_rank_traces.generate(out, 8, STEPS * 18, ranks_per_host=2, kernels_per_step=16,
                                            stragglers=["5:0-29", "2:30-59"], seed=7)
    assert truth["steps"] == STEPS
    return paths, truth


@pytest.fixture(scope="session")
def one_straggler(tmp_path_factory):
    """6 ranks, each on its own host; rank 4 straggles in every step."""
    out = tmp_path_factory.mktemp("one_straggler")
    return gen_rank_traces.generate(out, 6, 40 * 18, ranks_per_host=1, kernels_per_step=16, stragglers=["4"],
                                    seed=11)


@pytest.fixture(scope="session")
def client():
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as c:
        yield c


def offsets_error(result, truth):
    r = result.ranks.set_index("rank")
    return {t["rank"]: abs(int(r.loc[t["rank"], "clock_offset_ns"]) - t["offset_to_rank0_ns"]) for t in truth["ranks"]}


def test_clocks_planted_seconds_apart_are_aligned_within_10_us(cli, one_straggler, client):
    import streamscope
    paths, truth = one_straggler
    assert max(abs(t["clock_offset_ns"]) for t in truth["ranks"]) > 1_000_000_000, "offsets of seconds planted"
    result = streamscope.ranks.analyze(paths, client)
    assert result.comparable
    assert result.alignment["method"] == "collectives"
    assert result.alignment["hosts"] == 6
    errors = offsets_error(result, truth)
    assert max(errors.values()) <= 10_000, errors
    # The wall-clock start alone is off by the planted NTP error (ms).
    r = result.ranks.set_index("rank")
    wall = max(abs(int(r.loc[t["rank"], "wall_clock_offset_ns"]) - t["offset_to_rank0_ns"]) for t in truth["ranks"])
    assert wall > 10_000
    # The residual is reported and bounded by the planted end jitter (+-2 us).
    assert 0 < result.alignment["residual_max_ns"] <= 2 * truth["jitter_ns"]


def test_the_planted_straggler_is_named(cli, one_straggler, client):
    import streamscope
    paths, truth = one_straggler
    result = streamscope.ranks.analyze(paths, client)
    ranks = result.ranks.set_index("rank")
    assert ranks["caused_wait_ns"].idxmax() == 4
    assert ranks.loc[4, "last_arrivals"] == result.json["matched_collectives"]
    assert result.stragglers.iloc[0]["rank"] == 4
    assert (result.skews["last_rank"] == 4).all()
    # Communication/compute overlap and idle time per rank are there too.
    assert (ranks["overlapped_ns"] > 0).all() and (ranks["idle_ns"] > 0).all()


def test_each_step_names_its_planted_straggler(cli, steps_run, client):
    import streamscope
    paths, truth = steps_run
    result = streamscope.ranks.analyze(paths, client, nvtx="step")
    steps = result.steps
    assert len(steps) == STEPS
    expected = [5 if s < 30 else 2 for s in range(STEPS)]
    assert steps["straggler_rank"].tolist() == expected
    ranks = result.ranks.set_index("rank")
    assert ranks.loc[5, "straggler_steps"] == 30 and ranks.loc[2, "straggler_steps"] == 30
    assert set(result.stragglers["rank"].head(2)) == {2, 5}
    assert max(offsets_error(result, truth).values()) <= 10_000


@pytest.mark.parametrize("window", [{}, {"nvtx": "step"}])
def test_the_dask_path_and_report_give_identical_cross_rank_figures(cli, steps_run, client, window):
    import streamscope
    paths, _ = steps_run
    result = streamscope.ranks.analyze(paths, client, **window)
    args = ["--nvtx", window["nvtx"]] if window else []
    report = json.loads(subprocess.run([str(cli), "report", "--format", "json", *args, *map(str, paths)],
                                       check=True, stdout=subprocess.PIPE).stdout)
    assert report["combined"]["ranks"] == result.json
    local = streamscope.ranks.analyze(paths, **window)  # no client: threads here
    assert local.json == result.json


def test_report_jobs_gives_the_same_output_as_one_job(cli, steps_run):
    paths = [str(p) for p in steps_run[0]]
    for fmt in ("text", "json"):
        outs = [subprocess.run([str(cli), "report", "--format", fmt, "--nvtx", "step", "--jobs", str(j), *paths],
                               check=True, stdout=subprocess.PIPE).stdout for j in (1, 3)]
        assert outs[0] == outs[1], fmt
        if fmt == "text":
            assert b"Stragglers over 60 step(s): rank 2 in 30, rank 5 in 30." in outs[0]


def test_merge_facts_prints_the_alignment_in_text(cli, one_straggler, tmp_path):
    paths, _ = one_straggler
    files = []
    for i, p in enumerate(paths):
        f = tmp_path / f"f{i}.json"
        subprocess.run([str(cli), "facts", str(p), "-o", str(f)], check=True)
        files.append(str(f))
    text = subprocess.run([str(cli), "merge-facts", "--format", "text", *files], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    assert "Clocks of 6 hosts aligned to rank 0's" in text
    assert "Finding: rank 4 kept the others waiting longest" in text


def test_a_missing_trace_is_a_clear_error(cli, client, tmp_path):
    import streamscope
    with pytest.raises(streamscope.StreamscopeError, match="facts"):
        streamscope.ranks.analyze([tmp_path / "nope.sqlite"], client)
