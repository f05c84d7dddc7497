"""Timeline plot for notebooks (matplotlib).

One row per (device, stream) that ran ops in the window, ops as bars
coloured by category (compute, H2D, D2H, ...); below the streams of each
device, the analysis tracks computed by the C++ analyzer: overlap
intervals (coloured by category pair) and idle gaps at least the gap
threshold long (coloured by the primary cause where the cause analysis
explains the gap, grey otherwise). The x axis is milliseconds from the
start of the first window.

Every bar collection carries a gid, so that code (and the tests) can find
them: ``ops:<device>:<stream>:<category>``, ``overlap:<device>:<pair>``,
``gaps:<device>:<cause>``.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

CATEGORY_COLORS = {
    "compute": "#4C72B0", "H2D": "#55A868", "D2H": "#C44E52", "D2D": "#8172B2",
    "P2P": "#CCB974", "memset": "#64B5CD", "other_copy": "#8C8C8C",
}
_PAIR_PALETTE = ["#DA8BC3", "#DD8452", "#8C613C", "#937860", "#17BECF", "#BCBD22", "#E377C2", "#9467BD"]
_CAUSE_PALETTE = ["#FF7F0E", "#D62728", "#BCBD22", "#17BECF", "#9467BD", "#8C564B", "#E377C2", "#2CA02C"]
_UNEXPLAINED = "#B0B0B0"


def _spans(frame: pd.DataFrame, origin: int):
    start = (frame["start_ns"].astype("int64") - origin) / 1e6
    length = (frame["end_ns"].astype("int64") - frame["start_ns"].astype("int64")) / 1e6
    return list(zip(start.tolist(), length.tolist()))


def plot_timeline(trace, window=None, ax=None, *, nvtx: Optional[str] = None,
                  nvtx_instance: Optional[int] = None, absolute: bool = False,
                  gap_threshold_us: Optional[float] = None, report=None, row_height: float = 0.8):
    """Draws the trace's timeline for the window (same arguments as
    Trace.report; or pass a Report already computed as `report`) on `ax`
    (a new figure when None) and returns the figure. window=None is the
    commands' default window, the one report() and diagnose() use (the
    steady state, else the span of GPU activity); "whole" draws the whole trace."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if report is None:
        report = trace.report(window, nvtx=nvtx, nvtx_instance=nvtx_instance, absolute=absolute,
                              gap_threshold_us=gap_threshold_us)
    windows = report.windows
    lo, hi = int(windows["start_ns"].min()), int(windows["end_ns"].max())
    ops = trace.ops
    ops = ops[(ops["end_ns"] > lo) & (ops["start_ns"] < hi)].copy()
    ops["start_ns"] = ops["start_ns"].clip(lower=lo)
    ops["end_ns"] = ops["end_ns"].clip(upper=hi)
    ops["stream_key"] = ops["stream_id"].fillna(-1).astype("int64")

    streams = trace.streams.set_index("stream_id")["kind"].to_dict() if not trace.streams.empty else {}
    intervals = report.overlap_intervals
    gaps = report.gaps
    devices = sorted(set(ops["device_id"].dropna().astype(int)) | set(intervals["device_id"].dropna().astype(int))
                     | set(gaps["device_id"].dropna().astype(int)))

    n_rows = sum(ops[ops["device_id"] == d]["stream_key"].nunique() + 2 for d in devices)
    if ax is None:
        fig, ax = plt.subplots(figsize=(12, 1.0 + 0.35 * max(n_rows, 1)))
    fig = ax.figure

    labels, y = [], 0
    legend = {}
    pair_colors, cause_colors = {}, {}
    for device in devices:
        on_device = ops[ops["device_id"] == device]
        for stream in sorted(on_device["stream_key"].unique()):
            rows = on_device[on_device["stream_key"] == stream]
            for category, group in rows.groupby("category", sort=True):
                color = CATEGORY_COLORS.get(category, CATEGORY_COLORS["other_copy"])
                ax.broken_barh(_spans(group, lo), (y - row_height / 2, row_height), facecolors=color,
                               gid=f"ops:{device}:{stream}:{category}")
                legend.setdefault(category, color)
            kind = streams.get(stream)
            name = "unknown stream" if stream < 0 else f"stream {stream}"
            labels.append(f"GPU {device} · {name}" + (f" ({kind})" if kind and kind != "unknown" else ""))
            y += 1
        dev_intervals = intervals[intervals["device_id"] == device]
        for pair, group in dev_intervals.groupby("pair", sort=True):
            color = pair_colors.setdefault(pair, _PAIR_PALETTE[len(pair_colors) % len(_PAIR_PALETTE)])
            # Intervals of different pairs may coincide: translucent, so both show.
            ax.broken_barh(_spans(group, lo), (y - row_height / 2, row_height), facecolors=color, alpha=0.75,
                           gid=f"overlap:{device}:{pair}")
            legend.setdefault(f"overlap {pair}", color)
        labels.append(f"GPU {device} · overlap")
        y += 1
        dev_gaps = gaps[gaps["device_id"] == device].copy()
        dev_gaps["cause"] = dev_gaps["primary_cause"].fillna("")
        for cause, group in dev_gaps.groupby("cause", sort=True):
            if cause:
                color = cause_colors.setdefault(cause, _CAUSE_PALETTE[len(cause_colors) % len(_CAUSE_PALETTE)])
            else:
                color = _UNEXPLAINED
            ax.broken_barh(_spans(group, lo), (y - row_height / 2, row_height), facecolors=color,
                           gid=f"gaps:{device}:{cause or 'listed'}")
            legend.setdefault(f"gap: {cause}" if cause else "idle gap", color)
        labels.append(f"GPU {device} · idle gaps")
        y += 1
        ax.axhline(y - 0.5, color="black", linewidth=0.5)

    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # first stream on top, tracks below
    ax.set_xlim(0, (hi - lo) / 1e6)
    ax.set_xlabel("ms from the window start")
    title = ", ".join(str(x) for x in windows["label"].head(3))
    if len(windows) > 3:
        title += f", ... ({len(windows)} windows)"
    ax.set_title(f"{trace.source_path.name}: {title}")
    if legend:
        ax.legend(handles=[Patch(color=c, label=k) for k, c in legend.items()], loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    fig.tight_layout()
    return fig
