#!/usr/bin/env python3
"""Known-answer tests of check_workload_trace.py on synthetic traces built
from the rows of the real schema (written by `streamscope synth`): for each
variant a trace shaped like a correct run must pass, and the same trace
with the property broken must fail. Runs anywhere (no GPU):
python3 check_workload_trace_test.py STREAMSCOPE_BIN."""

import contextlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_workload_trace as checker  # noqa: E402

STREAMSCOPE = None  # the CLI, from argv in __main__
US = 1000
MS = 1000 * US
MIB = 1 << 20
HTOD, DTOH = 1, 2
PAGEABLE, PINNED, DEVICE = 1, 2, 3


class SyntheticTrace:
    """A trace shaped the way the collector would write it, with helpers per
    op: rows kept as a `streamscope synth` spec, written by close()."""

    def __init__(self, path):
        self.path = path
        self.spec = {"string": [], "context": [], "stream": [], "api_call": [], "kernel": [], "memcpy": [],
                     "memset": [], "nvtx_range": [], "nvtx_mark": []}
        self.strings = {}
        self.correlation = 0
        self.streams = set()
        self.marks = 0

    def string(self, value):
        if value not in self.strings:
            self.strings[value] = len(self.spec["string"]) + 1
            self.spec["string"].append({"id": self.strings[value], "value": value})
        return self.strings[value]

    def context(self, cid, null_stream_id=None):
        self.spec["context"].append({"id": cid, "device_id": 0, "null_stream_id": null_stream_id})

    def stream(self, sid, kind=4):
        if sid not in self.streams:
            self.spec["stream"].append({"id": sid, "context_id": 1, "device_id": 0, "kind": kind})
            self.streams.add(sid)

    def mark(self, name, ts, domain="streamscope"):
        self.marks += 1  # ids never reused, as SQLite numbers rows after a deleted one
        self.spec["nvtx_mark"].append({"id": self.marks, "tid": 1, "name_id": self.string(name),
                                       "domain_id": self.string(domain) if domain else None, "ts_ns": ts})

    def range(self, name, start, end, depth=0):
        self.spec["nvtx_range"].append({"tid": 1, "end_tid": 1, "name_id": self.string(name), "start_ns": start,
                                        "end_ns": end, "is_push_pop": 1, "depth": depth})

    def api(self, name, start, end, correlation=None):
        if correlation is None:
            self.correlation += 1
            correlation = self.correlation
        self.spec["api_call"].append({"domain": 1, "cbid": 0, "name_id": self.string(name), "tid": 1,
                                      "start_ns": start, "end_ns": end, "correlation_id": correlation,
                                      "return_value": 0})
        return correlation

    def _api_for(self, name, start, api):
        api_start, api_end = api if api else (start - 5 * US, start - 4 * US)
        return self.api(name, api_start, api_end)

    def kernel(self, name, stream, start, end, api=None, graph_id=None):
        self.stream(stream)
        corr = self._api_for("cudaGraphLaunch" if graph_id else "cudaLaunchKernel", start, api)
        self.spec["kernel"].append({"start_ns": start, "end_ns": end, "device_id": 0, "stream_id": stream,
                                    "correlation_id": corr, "name_id": self.string(name), "graph_id": graph_id})

    def copy(self, kind, stream, start, end, nbytes, host=PINNED, api=None):
        self.stream(stream)
        corr = self._api_for("cudaMemcpyAsync", start, api)
        src, dst = (host, DEVICE) if kind == HTOD else (DEVICE, host)
        self.spec["memcpy"].append({"start_ns": start, "end_ns": end, "device_id": 0, "stream_id": stream,
                                    "correlation_id": corr, "bytes": nbytes, "copy_kind": kind, "src_kind": src,
                                    "dst_kind": dst, "is_async": 1})

    def memset(self, stream, start, end, nbytes):
        self.stream(stream)
        corr = self._api_for("cudaMemset", start, None)
        self.spec["memset"].append({"start_ns": start, "end_ns": end, "device_id": 0, "stream_id": stream,
                                    "correlation_id": corr, "bytes": nbytes, "is_async": 0})

    def annotate(self, variant, params, window, validation="validation=passed"):
        self.mark(f"workload={variant}", window[0] - 10 * US)
        for key, value in params.items():
            self.mark(f"param:{key}={value}", window[0] - 9 * US)
        self.range("measured", *window)
        if validation:
            self.mark(validation, window[1] + 10 * US)

    def close(self):
        # Whole-ns times given as floats (0.5 * US) are integers in the trace.
        for rows in self.spec.values():
            for row in rows:
                row.update({k: int(v) for k, v in row.items() if isinstance(v, float) and v.is_integer()})
        subprocess.run([STREAMSCOPE, "synth", "-", "-o", self.path], input=json.dumps(self.spec), text=True,
                       check=True)


def chunk_pipeline(t, variant, chunks, streams, serialize=False, host=PINNED, api_holds=False,
                   stream_kind=4, copy=300 * US, kern=300 * US):
    """Chunks like the chunk variants: chunk c on stream c % streams. Copies
    on one copy engine per direction, kernels one at a time; serialize=True
    runs everything back to back instead."""
    t0 = 1 * MS
    h2d_free = kern_free = d2h_free = t0
    stream_free = {}
    cursor = t0
    for c in range(chunks):
        s = 10 + c % streams
        t.stream(s, stream_kind)
        if serialize:
            start = cursor
            h = (start, start + copy)
            k = (h[1], h[1] + kern)
            d = (k[1], k[1] + copy)
            cursor = d[1]
        else:
            ready = stream_free.get(s, t0)
            h = (max(h2d_free, ready), max(h2d_free, ready) + copy)
            h2d_free = h[1]
            k = (max(kern_free, h[1]), max(kern_free, h[1]) + kern)
            kern_free = k[1]
            d = (max(d2h_free, k[1]), max(d2h_free, k[1]) + copy)
            d2h_free = d[1]
            stream_free[s] = d[1]
        h_api = (h[0] - 10 * US, h[1] - 5 * US) if api_holds else None
        d_api = (d[0] - 10 * US, d[1] + 2 * US) if api_holds else None
        t.copy(HTOD, s, *h, 4 * MIB, host=host, api=h_api)
        t.kernel("ChunkTransform", s, *k)
        t.copy(DTOH, s, *d, 4 * MIB, host=host, api=d_api)
    end = max(cursor, d2h_free) + 50 * US
    return (t0 - 100 * US, end)


class CheckerTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def new_trace(self, name="trace"):
        path = os.path.join(self.dir.name, f"{name}.sqlite")
        return path, SyntheticTrace(path)

    def run_checker(self, args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            rc = checker.main(args)
        return rc, out.getvalue()

    def assertVerdict(self, variant, path, want, related=()):
        args = [variant, path] + [f"--related={r}" for r in related]
        rc, out = self.run_checker(args)
        self.assertEqual(rc, want, out)
        return out

    def chunk_trace(self, variant, chunks=4, streams=2, validation="validation=passed", **kw):
        path, t = self.new_trace(variant)
        window = chunk_pipeline(t, variant, chunks, streams, **kw)
        params = {"chunks": chunks, "chunk_mib": 4, "iterations": 1, "kernel_iters": 1024}
        if variant != "sequential":
            params["streams"] = streams
        t.annotate(variant, params, window, validation)
        return path, t, window

    # Common checks ------------------------------------------------------------

    def test_overlapped_pipeline_passes(self):
        path, t, _ = self.chunk_trace("overlapped")
        t.close()
        out = self.assertVerdict("overlapped", path, 0)
        self.assertIn("H2D||kernel overlap across streams present", out)

    def test_overlapped_without_overlap_fails(self):
        path, t, _ = self.chunk_trace("overlapped", serialize=True)
        t.close()
        out = self.assertVerdict("overlapped", path, 1)
        self.assertIn("FAIL H2D||kernel", out)

    def test_missing_validation_mark_fails(self):
        path, t, _ = self.chunk_trace("overlapped", validation=None)
        t.close()
        out = self.assertVerdict("overlapped", path, 1)
        self.assertIn("FAIL validation=passed", out)

    def test_failed_validation_fails_a_correct_variant(self):
        path, t, _ = self.chunk_trace("overlapped", validation="validation=failed: 3 words differ")
        t.close()
        self.assertVerdict("overlapped", path, 1)

    def test_wrong_amount_of_work_fails(self):
        path, t, window = self.chunk_trace("overlapped")
        t.kernel("ChunkTransform", 10, window[0] + 10 * US, window[0] + 20 * US)  # one too many
        t.close()
        out = self.assertVerdict("overlapped", path, 1)
        self.assertIn("FAIL kernels in the window", out)

    def test_work_outside_the_window_is_ignored(self):
        path, t, window = self.chunk_trace("overlapped")
        t.kernel("ChunkTransform", 10, window[0] - 50 * US, window[0] - 40 * US)  # warm-up
        t.close()
        self.assertVerdict("overlapped", path, 0)

    def test_wrong_workload_mark_fails(self):
        path, t, _ = self.chunk_trace("overlapped")
        t.close()
        out = self.assertVerdict("pageable", path, 1)
        self.assertIn("FAIL mark 'workload=pageable'", out)

    def test_not_a_trace_is_a_usage_error(self):
        path = os.path.join(self.dir.name, "empty.sqlite")
        sqlite3.connect(path).execute("CREATE TABLE x(y)").connection.close()
        rc, out = self.run_checker(["overlapped", path])
        self.assertEqual(rc, 2)
        self.assertIn("missing tables", out)

    def test_absent_fixture_is_skipped_visibly(self):
        rc, out = self.run_checker(["--fixture-dir", self.dir.name, "overlapped"])
        self.assertEqual(rc, 77)
        self.assertTrue(out.startswith("SKIPPED:"), out)

    def test_present_fixture_is_checked(self):
        path, t, _ = self.chunk_trace("overlapped")
        t.close()
        rc, out = self.run_checker(["--fixture-dir", self.dir.name, "overlapped"])
        self.assertEqual(rc, 0, out)

    # Variant properties ----------------------------------------------------------

    def test_sequential_without_overlap_passes(self):
        path, t, _ = self.chunk_trace("sequential", streams=1, serialize=True)
        t.close()
        self.assertVerdict("sequential", path, 0)

    def test_sequential_with_overlap_fails(self):
        path, t, _ = self.chunk_trace("sequential", streams=2)
        t.close()
        out = self.assertVerdict("sequential", path, 1)
        self.assertIn("FAIL no two GPU ops overlap", out)

    def test_pageable_copies_holding_the_host_pass(self):
        path, t, _ = self.chunk_trace("pageable", host=PAGEABLE, api_holds=True)
        t.close()
        self.assertVerdict("pageable", path, 0)

    def test_pageable_copies_returning_at_once_fail(self):
        path, t, _ = self.chunk_trace("pageable", host=PAGEABLE, api_holds=False)
        t.close()
        out = self.assertVerdict("pageable", path, 1)
        self.assertIn("FAIL copy API calls hold the host", out)

    def test_pinned_copies_are_not_pageable(self):
        path, t, _ = self.chunk_trace("pageable", host=PINNED, api_holds=True)
        t.close()
        self.assertVerdict("pageable", path, 1)

    def legacy_trace(self, overlap_tick):
        """Chunk c on blocking stream 10 + c % 2, then a 5 us tick on the
        legacy stream 1; the next chunk starts after the tick (or, broken,
        while it still runs)."""
        path, t = self.new_trace("legacy_default")
        t.stream(1, kind=1)
        t.context(1, null_stream_id=1)
        t0 = cursor = 1 * MS
        for c in range(4):
            s = 10 + c % 2
            t.stream(s, kind=3)
            t.copy(HTOD, s, cursor, cursor + 100 * US, 4 * MIB)
            t.kernel("ChunkTransform", s, cursor + 100 * US, cursor + 200 * US)
            t.copy(DTOH, s, cursor + 200 * US, cursor + 300 * US, 4 * MIB)
            t.kernel("LegacyStreamTick", 1, cursor + 300 * US, cursor + 305 * US)
            cursor += (302 if overlap_tick else 306) * US
        t.annotate("legacy_default", {"chunks": 4, "chunk_mib": 4, "iterations": 1,
                                      "kernel_iters": 1024, "streams": 2},
                   (t0 - 10 * US, cursor + 20 * US))
        return path, t

    def test_legacy_stream_serializing_passes(self):
        path, t = self.legacy_trace(overlap_tick=False)
        t.close()
        self.assertVerdict("legacy_default", path, 0)

    def test_legacy_op_overlapping_a_blocking_stream_fails(self):
        path, t = self.legacy_trace(overlap_tick=True)
        t.close()
        out = self.assertVerdict("legacy_default", path, 1)
        self.assertIn("FAIL no blocking-stream op overlaps a legacy-stream op", out)

    def test_implicit_sync_calls_are_found(self):
        path, t, window = self.chunk_trace("implicit_sync")
        streams_param = t.string("param:streams=2")
        t.spec["nvtx_mark"] = [m for m in t.spec["nvtx_mark"] if m["name_id"] != streams_param]
        t.mark("param:streams=2", window[0] - 9 * US)
        t.mark("param:scratch_kib=1024", window[0] - 9 * US)
        for c in range(4):
            at = window[0] + (c + 1) * 100 * US
            t.api("cudaMalloc_v3020", at, at + US)
            t.memset(0, at + 2 * US, at + 3 * US, 1 << 20)
            t.api("cudaFree", at + 4 * US, at + 5 * US)
        t.close()
        self.assertVerdict("implicit_sync", path, 0)

    def test_implicit_sync_without_the_calls_fails(self):
        path, t, _ = self.chunk_trace("implicit_sync")
        t.close()
        out = self.assertVerdict("implicit_sync", path, 1)
        self.assertIn("FAIL 0 cudaMalloc calls", out)

    def cpu_starved_trace(self, prepare_us, with_ranges=True):
        path, t = self.new_trace("cpu_starved")
        chunks, t0 = 4, 1 * MS
        cursor = t0
        for c in range(chunks):
            if with_ranges:
                t.range("host_prepare", cursor, cursor + prepare_us * US, depth=1)
            cursor += prepare_us * US
            s = 10 + c % 2
            t.copy(HTOD, s, cursor + 10 * US, cursor + 90 * US, 4 * MIB)
            t.kernel("ChunkTransform", s, cursor + 90 * US, cursor + 170 * US)
            t.copy(DTOH, s, cursor + 170 * US, cursor + 250 * US, 4 * MIB)
            cursor += 5 * US
        window = (t0 - 10 * US, cursor + 300 * US)
        t.annotate("cpu_starved", {"chunks": 4, "chunk_mib": 4, "iterations": 1,
                                   "kernel_iters": 1024, "streams": 2,
                                   "host_prepare_us": prepare_us}, window)
        t.close()
        return path

    def test_cpu_starvation_gaps_inside_host_prepare_pass(self):
        self.assertVerdict("cpu_starved", self.cpu_starved_trace(3000), 0)

    def test_short_host_work_leaves_no_starvation_gaps(self):
        out = self.assertVerdict("cpu_starved", self.cpu_starved_trace(200), 1)
        self.assertIn("FAIL 0 device idle gaps", out)

    def test_gaps_without_host_prepare_ranges_fail(self):
        self.assertVerdict("cpu_starved", self.cpu_starved_trace(3000, with_ranges=False), 1)

    def launch_trace(self, variant, gap_us):
        path, t = self.new_trace(variant)
        t0, cursor = 1 * MS, 1 * MS
        for _ in range(50):
            t.kernel("TinyStep", 10, cursor, cursor + 2 * US,
                     graph_id=7 if variant == "launch_graph" else None)
            cursor += (2 + gap_us) * US
        t.copy(DTOH, 10, cursor, cursor + 3 * US, 128)
        t.annotate(variant, {"kernels": 50, "iterations": 1}, (t0 - 10 * US, cursor + 20 * US))
        t.close()
        return path

    def test_graph_with_smaller_gaps_than_individual_launches_passes(self):
        individual = self.launch_trace("launch_individual", gap_us=3)
        graph = self.launch_trace("launch_graph", gap_us=0.5)
        self.assertVerdict("launch_individual", individual, 0)
        out = self.assertVerdict("launch_graph", graph, 0, related=[f"launch_individual={individual}"])
        self.assertIn("ok   individual launches leave more inter-kernel gap", out)

    def test_graph_with_larger_gaps_fails(self):
        individual = self.launch_trace("launch_individual", gap_us=1)
        graph = self.launch_trace("launch_graph", gap_us=4)
        self.assertVerdict("launch_graph", graph, 1, related=[f"launch_individual={individual}"])

    def pipeline_trace(self, variant, wait_for_refill=True, waits=None):
        path, t = self.new_trace(variant)
        chunks, slots, copy, kern = 6, 2, 100 * US, 250 * US
        t0 = 1 * MS
        h, k, d = [], [], []
        for i in range(chunks):
            start = h[-1][1] if h else t0
            if wait_for_refill and i >= slots:
                start = max(start, k[i - slots][1])
            h.append((start, start + copy))
            ks = max(h[i][1], k[-1][1] if k else 0, d[i - slots][1] if i >= slots else 0)
            k.append((ks, ks + kern))
            ds = max(k[i][1], d[-1][1] if d else 0)
            d.append((ds, ds + copy))
        for i in range(chunks):
            t.copy(HTOD, 20, *h[i], 4 * MIB)
            t.kernel("ChunkTransform", 21, *k[i])
            t.copy(DTOH, 22, *d[i], 4 * MIB)
        reuse = chunks - slots
        if waits is None:
            waits = 2 * chunks + (2 * reuse if variant == "event_pipeline" else reuse)
        for i in range(waits):
            t.api("cudaStreamWaitEvent", t0 + i * US, t0 + i * US + 100)
        for i in range(3 * chunks):
            t.api("cudaEventRecord", t0 + i * US + 200, t0 + i * US + 300)
        window = (t0 - 10 * US, d[-1][1] + 20 * US)
        params = {"chunks": chunks, "chunk_mib": 4, "iterations": 1, "kernel_iters": 1024,
                  "slots": slots}
        validation = "validation=passed" if variant == "event_pipeline" else "validation=failed: x"
        t.annotate(variant, params, window, validation)
        t.close()
        return path

    def test_event_pipeline_with_all_waits_passes(self):
        self.assertVerdict("event_pipeline", self.pipeline_trace("event_pipeline"), 0)

    def test_event_pipeline_refilling_too_early_fails(self):
        path = self.pipeline_trace("event_pipeline", wait_for_refill=False)
        out = self.assertVerdict("event_pipeline", path, 1)
        self.assertIn("FAIL no H2D refills an input slot", out)

    def test_event_pipeline_with_a_missing_wait_call_fails(self):
        path = self.pipeline_trace("event_pipeline", waits=19)
        self.assertVerdict("event_pipeline", path, 1)

    def test_racy_variant_reports_its_race_and_passes(self):
        out = self.assertVerdict("racy", self.pipeline_trace("racy", wait_for_refill=False), 0)
        self.assertIn("race observed in time: 4 of 4", out)

    def concurrent_trace(self, overlap):
        path, t = self.new_trace("concurrent_kernels")
        t0 = 1 * MS
        for s in range(2):
            for k in range(2):
                start = t0 + k * 300 * US + (s * 10 * US if overlap else s * 600 * US)
                t.kernel("SpinCompute", 30 + s, start, start + 200 * US)
        end = t0 + 2 * MS
        for s in range(2):
            t.copy(DTOH, 30 + s, end, end + 5 * US, 2 * 2 * 128 * 4)
        t.annotate("concurrent_kernels", {"streams": 2, "iterations": 2, "kernel_iters": 1,
                                          "blocks": 2}, (t0 - 10 * US, end + 20 * US))
        t.close()
        return path

    def test_concurrent_kernels_overlapping_pass(self):
        self.assertVerdict("concurrent_kernels", self.concurrent_trace(True), 0)

    def test_concurrent_kernels_serialized_fail(self):
        self.assertVerdict("concurrent_kernels", self.concurrent_trace(False), 1)

    def test_persistent_kernel_is_one_launch(self):
        path, t = self.new_trace("persistent_kernel")
        t.kernel("PersistentWorker", 40, 1 * MS, 3 * MS, api=(1 * MS - 5 * US, 1 * MS - 4 * US))
        t.copy(DTOH, 40, 3 * MS, 3 * MS + 10 * US, 16 * 128 * 4)
        t.annotate("persistent_kernel", {"items": 16, "item_iters": 10, "blocks": 4, "slots": 8,
                                         "timeout_ms": 10000}, (1 * MS - 50 * US, 4 * MS))
        t.close()
        self.assertVerdict("persistent_kernel", path, 0)

    def test_misleading_timing_events_miss_other_streams(self):
        path, t, window = self.chunk_trace("misleading_timing", chunks=4, streams=1)
        # Rebuild: chunk 0 on stream 50, the rest on stream 51.
        copies, kernels = t.spec["memcpy"], t.spec["kernel"]
        first_copy = min(c["start_ns"] for c in copies)
        first_kernel = min(k["start_ns"] for k in kernels)
        first_d2h = min(c["start_ns"] for c in copies if c["copy_kind"] == DTOH)
        for c in copies:
            first = c["start_ns"] == first_copy or (c["copy_kind"] == DTOH and c["start_ns"] == first_d2h)
            c["stream_id"] = 50 if first else 51
        for k in kernels:
            k["stream_id"] = 50 if k["start_ns"] == first_kernel else 51
        t.api("cudaEventElapsedTime", window[1] - 30 * US, window[1] - 29 * US)
        t.mark("result:event_elapsed_ms=0.900", window[1] + 20 * US)
        t.mark("result:host_measured_ms=3.500", window[1] + 20 * US)
        t.close()
        self.assertVerdict("misleading_timing", path, 0)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        print("usage: check_workload_trace_test.py STREAMSCOPE_BIN [unittest args]", file=sys.stderr)
        sys.exit(2)
    STREAMSCOPE = sys.argv.pop(1)
    unittest.main()
