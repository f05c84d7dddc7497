"""rank_facts: one rank's compact facts, the unit a Dask task will return."""
import streamscope


def test_per_window_figures_are_the_analyzers(overlapped):
    facts = overlapped.rank_facts()
    report = overlapped.report()
    row = facts.windows.iloc[0]
    idle = report.idle_devices.iloc[0]
    assert row["busy_ns"] == idle["busy_ns"] and row["idle_ns"] == idle["idle_ns"]
    copy = report.overlap_categories.query("category == 'any_copy'").iloc[0]
    assert row["copy_ns"] == copy["time_ns"] and row["exposed_copy_ns"] == copy["exposed_ns"]
    assert facts.comm_kernels.empty
    assert facts.pid == overlapped.pid
    assert facts.start_wall_time_ns is not None


def test_nccl_kernels_are_listed_with_collective_and_ordinal(copy_trace, data, tmp_path):
    def nccl_rank3(spec):
        nccl = max(s["id"] for s in spec["string"]) + 1
        spec["string"].append({"id": nccl, "value": "ncclDevKernel_AllReduce_Sum_f32_RING_LL"})
        for k in sorted(spec["kernel"], key=lambda k: k["start_ns"])[:3]:
            k["name_id"] = nccl
        spec["metadata"]["env:RANK"] = "3"

    path = copy_trace(data / "overlapped.sqlite", tmp_path / "rank.sqlite", nccl_rank3)
    facts = streamscope.rank_facts(path, step_range="measured")
    assert facts.rank == 3
    k = facts.comm_kernels
    assert k["collective"].tolist() == ["AllReduce"] * 3
    assert k["ordinal"].tolist() == [0, 1, 2]
    assert (k["end_ns"] > k["start_ns"]).all()
    assert facts.windows.iloc[0]["comm_ns"] > 0  # the analyzer counts them as communication
    assert facts.steps["instance"].tolist() == [1]
    small = facts.to_dict()
    assert small["comm_kernels"][0]["collective"] == "AllReduce"
    assert isinstance(small["windows"][0]["busy_ns"], int)
