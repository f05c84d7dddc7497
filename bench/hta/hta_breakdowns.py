#!/usr/bin/env python3
"""Loads a torch.profiler trace folder in Holistic Trace Analysis and computes the
breakdowns that correspond to `streamscope report`'s analyses.

    hta_breakdowns.py TRACE_DIR [--summary]

What is computed (HTA 0.5.0 API, every plot off), and the streamscope analysis
each one stands for:
  get_temporal_breakdown          idle / compute / non-compute time     <-> overlap: time by category, busy/idle
  get_idle_time_breakdown         idle time per stream: host wait,
                                  kernel wait, other                    <-> idle gaps + gap causes
  get_gpu_kernel_breakdown        time per kernel type and kernel        <-> overlap: time by category (per op kind)
  get_comm_comp_overlap           communication/computation overlap %   <-> overlap of categories, communication
  get_cuda_kernel_launch_stats    CPU call vs GPU duration, launch delay <-> launch statistics
  get_gpu_user_annotation_breakdown(use_gpu_annotation=False)
                                  time per user annotation (CPU side:    <-> time per annotation ("who launched")
                                  the GPU side needs gpu_user_annotation
                                  events, which HTA's parser drops by default)
The trace is loaded with include_last_profiler_step=True so that HTA keeps the
GPU ops of the last ProfilerStep, as streamscope does (by default HTA drops them).

Prints one line per stage with its wall time; --summary also prints the
headline figures of each result, to compare with streamscope's.
"""
import argparse
import logging
import os
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace_dir")
    p.add_argument("--summary", action="store_true")
    a = p.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    t0 = time.perf_counter()
    from hta.configs.config import logger as hta_logger
    from hta.trace_analysis import TraceAnalysis
    hta_logger.setLevel(logging.ERROR)
    t_import = time.perf_counter()

    stages = []

    def stage(name, fn):
        t = time.perf_counter()
        r = fn()
        stages.append((name, time.perf_counter() - t))
        return r

    ta = stage("load", lambda: TraceAnalysis(trace_dir=a.trace_dir, include_last_profiler_step=True))
    temporal = stage("temporal_breakdown", lambda: ta.get_temporal_breakdown(visualize=False))
    idle = stage("idle_time_breakdown", lambda: ta.get_idle_time_breakdown(visualize=False,
                                                                          show_idle_interval_stats=True))
    kernels = stage("gpu_kernel_breakdown", lambda: ta.get_gpu_kernel_breakdown(visualize=False))
    overlap = stage("comm_comp_overlap", lambda: ta.get_comm_comp_overlap(visualize=False))
    launch = stage("cuda_kernel_launch_stats", lambda: ta.get_cuda_kernel_launch_stats(visualize=False))
    annotations = stage("user_annotation_breakdown",
                        lambda: ta.get_gpu_user_annotation_breakdown(use_gpu_annotation=False, visualize=False))
    total = time.perf_counter() - t0

    print(f"import {t_import - t0:.3f} s")
    for name, s in stages:
        print(f"{name} {s:.3f} s")
    print(f"total {total:.3f} s")
    # Headline figures on one line, to check both tools saw the same trace.
    trace = ta.t.get_trace(0)
    row = temporal.iloc[0]
    print(f"figures gpu_ops {int((trace['stream'] > 0).sum())} "
          f"idle_pct {row['idle_time_pctg']:.2f} compute_pct {row['compute_time_pctg']:.2f} "
          f"comm_comp_overlap_pct {overlap.iloc[0]['comp_comm_overlap_pctg']:.2f}")
    if a.summary:
        import pandas as pd
        pd.set_option("display.width", 200)
        pd.set_option("display.max_columns", 20)
        print("events in HTA's frame:", len(trace), " GPU ops:", int((trace["stream"] > 0).sum()))
        print("temporal breakdown:\n", temporal)
        print("idle time breakdown (per stream):\n", idle[0])
        print("kernel type breakdown:\n", kernels[0])
        print("comm/comp overlap:\n", overlap)
        l0 = launch.get(0)
        print("launch stats rows:", 0 if l0 is None else len(l0))
        if l0 is not None and len(l0):
            print(l0[["cpu_duration", "gpu_duration", "launch_delay"]].describe())
        print("user annotation breakdown:\n", annotations)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
