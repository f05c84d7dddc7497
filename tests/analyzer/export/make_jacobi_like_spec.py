#!/usr/bin/env python3
"""Writes the spec (`streamscope synth SPEC -o TRACE`) of a jacobi-like trace.

The shape of the CUDA sample jacobiCudaGraphs: after a long host start-up
(one H2D copy of the matrix, then about 16.7 s of host work), every
iteration launches a CUDA graph (memset of the sum, the Jacobi kernel, an
8-byte D2H copy of the sum) and waits for it with cudaStreamSynchronize
before the host checks the sum. 2956 iterations make 8,869 GPU ops and
5,913 API calls on one thread, in a trace of about 16.8 s: dense enough
that one pixel of the default view holds several iterations.

usage: make_jacobi_like_spec.py OUT.json [--iterations N]
"""
import argparse
import json
import random

US = 1000
STARTUP_NS = 16_700_000 * US


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--iterations", type=int, default=2956)
    args = p.parse_args()
    rng = random.Random(7)  # fixed: the same trace every run

    strings = ["JacobiMethod(float const*, double const*, float const*, float*, float*, double*)",
               "cudaGraphLaunch", "cudaStreamSynchronize", "cudaMalloc", "cudaMemcpy", "main"]
    sid = {s: i + 1 for i, s in enumerate(strings)}
    spec = {
        "metadata": {"pid": "5150", "capture_end": "normal_exit", "command_line": "./jacobiCudaGraphs"},
        "string": [{"id": sid[s], "value": s} for s in strings],
        "device": [{"id": 0, "name": "Synthetic GPU", "compute_major": 9, "compute_minor": 0, "sm_count": 132,
                    "async_engine_count": 2, "concurrent_kernels": 1}],
        "context": [{"id": 1, "device_id": 0}],
        "stream": [{"id": 13, "context_id": 1, "device_id": 0, "kind": 4}],
        "thread": [{"tid": 5150, "name": "main"}],
        "api_call": [], "kernel": [], "memcpy": [], "memset": [], "sync": [],
    }
    api, corr = spec["api_call"], [0]

    def call(name, cbid, start, end):
        corr[0] += 1
        api.append({"domain": 1, "cbid": cbid, "name_id": sid[name], "tid": 5150, "start_ns": start,
                    "end_ns": end, "correlation_id": corr[0], "return_value": 0})
        return corr[0]

    # Start-up: allocation and the matrix copied in, then host work.
    call("cudaMalloc", 20, 100 * US, 90_000 * US)
    c = call("cudaMemcpy", 31, 91_000 * US, 95_000 * US)
    spec["memcpy"].append({"start_ns": 91_500 * US, "end_ns": 94_800 * US, "device_id": 0, "context_id": 1,
                           "stream_id": 13, "correlation_id": c, "bytes": 64 << 20, "copy_kind": 1,
                           "src_kind": 1, "dst_kind": 3, "is_async": 0})
    t = STARTUP_NS
    for i in range(args.iterations):
        launch_end = t + rng.randint(3 * US, 5 * US)
        c = call("cudaGraphLaunch", 311, t, launch_end)
        g = {"device_id": 0, "context_id": 1, "stream_id": 13, "correlation_id": c, "graph_id": 1 + i % 2}
        ms = launch_end + rng.randint(2 * US, 4 * US)
        spec["memset"].append(dict(g, start_ns=ms, end_ns=ms + 1500, bytes=8, value=0, memory_kind=3, is_async=1,
                                   graph_node_id=1))
        k = ms + 2500
        k_end = k + rng.randint(10 * US, 14 * US)
        spec["kernel"].append(dict(g, start_ns=k, end_ns=k_end, name_id=sid[strings[0]], grid_x=256, grid_y=1,
                                   grid_z=1, block_x=512, block_y=1, block_z=1, registers_per_thread=32,
                                   static_shared_bytes=4096, dynamic_shared_bytes=0, graph_node_id=2))
        d = k_end + 1200
        spec["memcpy"].append(dict(g, start_ns=d, end_ns=d + 1800, bytes=8, copy_kind=2, src_kind=3, dst_kind=2,
                                   is_async=1, graph_node_id=3))
        sync_start = launch_end + 300
        sync_end = d + 1800 + rng.randint(2 * US, 3 * US)
        s = call("cudaStreamSynchronize", 131, sync_start, sync_end)
        spec["sync"].append({"kind": 3, "start_ns": sync_start, "end_ns": sync_end, "context_id": 1,
                             "stream_id": 13, "correlation_id": s, "return_value": 0})
        t = sync_end + rng.randint(4 * US, 7 * US)  # the host checks the sum
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(spec, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
