"""plot_timeline: one row per (device, stream) that ran ops, one bar per op,
the analysis tracks below."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402


def bars(ax, prefix):
    return sum(len(c.get_paths()) for c in ax.collections if (c.get_gid() or "").startswith(prefix))


def test_streams_are_rows_ops_are_bars_tracks_below(overlapped):
    fig = overlapped.plot_timeline("whole")
    ax = fig.axes[0]
    ops = overlapped.ops
    streams = ops.groupby(["device_id", "stream_id"]).ngroups
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == streams + 2  # one device: overlap and idle-gap tracks
    assert labels[-2:] == ["GPU 0 · overlap", "GPU 0 · idle gaps"]
    assert bars(ax, "ops:") == len(ops)
    report = overlapped.report("whole")  # the plot draws the whole trace
    assert bars(ax, "overlap:") == len(report.overlap_intervals) > 0
    assert bars(ax, "gaps:") == len(report.gaps)
    assert any(c.get_gid() == "ops:0:13:H2D" or c.get_gid().endswith(":H2D") for c in ax.collections)
    fig.canvas.draw()  # renders with Agg
    plt.close(fig)


def test_a_window_clips_the_ops_and_an_axis_can_be_given(overlapped):
    fig, ax = plt.subplots()
    out = overlapped.plot_timeline(nvtx="measured", ax=ax)
    assert out is fig
    window = overlapped.report(nvtx="measured").windows.iloc[0]
    ops = overlapped.ops
    inside = ops[(ops["end_ns"] > window["start_ns"]) & (ops["start_ns"] < window["end_ns"])]
    assert bars(ax, "ops:") == len(inside)
    assert ax.get_xlim()[1] == int(window["length_ns"]) / 1e6
    fig.canvas.draw()
    plt.close(fig)


def test_by_default_the_plot_draws_the_window_report_uses(overlapped):
    fig = overlapped.plot_timeline()
    window = overlapped.report().windows.iloc[0]
    ax = fig.axes[0]
    ops = overlapped.ops
    inside = ops[(ops["end_ns"] > window["start_ns"]) & (ops["start_ns"] < window["end_ns"])]
    assert bars(ax, "ops:") == len(inside)
    assert ax.get_xlim()[1] == int(window["length_ns"]) / 1e6
    plt.close(fig)
