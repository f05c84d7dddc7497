#!/usr/bin/env python3
"""Checks that a streamscope trace of a reference workload shows the property
its variant guarantees (workloads/README.md), with plain SQL over the trace
schema (schema/streamscope_schema.sql). Needs only python3 and its sqlite3
module, so it runs on the GPU machine and in CI on committed traces.

  check_workload_trace.py VARIANT TRACE [--related VARIANT=TRACE ...]
      Checks one trace. launch_graph also compares against a launch_individual
      trace when one is given with --related (and vice versa).
  check_workload_trace.py --fixture-dir DIR VARIANT
      Checks DIR/VARIANT.sqlite (a committed fixture); related fixtures in DIR
      are used when present. Exits 77 after a "SKIPPED:" line when the
      fixture does not exist.
  check_workload_trace.py --list
      Prints the variants and what is checked for each.

Exit codes: 0 every check passed, 1 a check failed, 2 usage error or a file
that is not a readable trace, 77 skipped (fixture absent).

Every check is on the measured window: the one default-domain NVTX range
"measured". Besides the variant's property, each variant's known amount of
work (kernel counts by name, copies and bytes per direction, computed from
its "param:" marks) must be exactly what the trace holds inside the window.
"""

import argparse
import dataclasses
import os
import re
import sqlite3
import sys

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 77

# Intersections up to this long count as "no overlap": GPU timestamps are
# mapped into the CPU clock by CUPTI and may jitter by a few hundred ns.
TOLERANCE_NS = 1000
MIB = 1 << 20
COPY_KINDS = {1: "H2D", 2: "D2H", 8: "D2D", 10: "P2P"}
PAGEABLE, PINNED = 1, 2
LEGACY_STREAM_KIND = 1

CHUNK_VARIANTS = ("sequential", "overlapped", "pageable", "implicit_sync", "legacy_default",
                  "cpu_starved", "event_pipeline", "racy", "misleading_timing")
VARIANTS = CHUNK_VARIANTS + ("launch_individual", "launch_graph", "concurrent_kernels",
                             "persistent_kernel", "peer_overlap", "library_gemm", "long_startup",
                             "tiny_sync", "slow_first_launch")


class TraceError(Exception):
    """The file is not a trace this checker can read."""


@dataclasses.dataclass
class Op:
    category: str  # 'kernel', 'H2D', 'D2H', 'D2D', 'memset', ...
    start: int
    end: int
    stream: int
    correlation: int
    name: str = ""  # kernel name
    bytes: int = 0
    src_kind: int = 0
    dst_kind: int = 0
    is_async: int = 0
    graph_id: object = None
    device: int = 0
    src_device: object = None  # peer copies
    dst_device: object = None


@dataclasses.dataclass
class Api:
    name: str
    start: int
    end: int
    correlation: int
    tid: int
    domain: int  # 1 runtime, 2 driver


def normalize_api_name(name):
    """'cudaMalloc_v3020' -> 'cudaMalloc'; '_ptsz'/'_ptds' suffixes dropped."""
    name = re.sub(r"_v\d+$", "", name)
    return re.sub(r"_(ptsz|ptds)$", "", name)


def intersection(a, b):
    return max(0, min(a.end, b.end) - max(a.start, b.start))


def max_cross_stream_overlap(first, second):
    """Largest intersection between an op of `first` and an op of `second` on
    another stream, with the pair."""
    best, pair = 0, None
    second = sorted(second, key=lambda o: o.start)
    for a in first:
        for b in second:
            if b.start >= a.end:
                break
            if a.stream == b.stream or a is b:
                continue
            overlap = intersection(a, b)
            if overlap > best:
                best, pair = overlap, (a, b)
    return best, pair


def total_cross_stream_overlap(first, second):
    total = 0
    for a in first:
        for b in second:
            if a.stream != b.stream and a is not b:
                total += intersection(a, b)
    return total


def max_pairwise_overlap(ops):
    """Largest intersection between any two ops (sweep over start order)."""
    best, pair, running = 0, None, None
    for op in sorted(ops, key=lambda o: o.start):
        if running is not None:
            overlap = min(running.end, op.end) - op.start
            if overlap > best:
                best, pair = overlap, (running, op)
        if running is None or op.end > running.end:
            running = op
    return best, pair


def busy_union(ops):
    intervals = []
    for op in sorted(ops, key=lambda o: o.start):
        if intervals and op.start <= intervals[-1][1]:
            intervals[-1][1] = max(intervals[-1][1], op.end)
        else:
            intervals.append([op.start, op.end])
    return intervals


def idle_gaps(ops, window_start, window_end):
    """Complement of the busy union inside the window, as (start, end)."""
    gaps, cursor = [], window_start
    for start, end in busy_union(ops):
        if start > cursor:
            gaps.append((cursor, min(start, window_end)))
        cursor = max(cursor, end)
    if cursor < window_end:
        gaps.append((cursor, window_end))
    return [g for g in gaps if g[1] > g[0]]


def describe(op):
    what = op.name if op.category == "kernel" else f"{op.category} {op.bytes} B"
    return f"{what} on stream {op.stream} [{op.start}, {op.end}]"


def ms(ns):
    return f"{ns / 1e6:.3f} ms"


class Trace:
    """What the checks need from one trace, restricted to the measured window."""

    REQUIRED_TABLES = ("string", "kernel", "memcpy", "memset", "api_call", "nvtx_range",
                       "nvtx_mark", "stream")

    def __init__(self, path):
        if not os.path.isfile(path):
            raise TraceError(f"{path}: no such file")
        try:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        except sqlite3.DatabaseError as e:
            raise TraceError(f"{path}: not an SQLite trace ({e})") from e
        missing = [t for t in self.REQUIRED_TABLES if t not in tables]
        if missing:
            raise TraceError(f"{path}: not a streamscope trace (missing tables: {', '.join(missing)})")
        self.path = path
        self.has_device_table = "device" in tables
        self.has_context_table = "context" in tables
        self.marks = [(name, ts) for name, ts in self.db.execute(
            "SELECT s.value, m.ts_ns FROM nvtx_mark m JOIN string s ON s.id = m.name_id "
            "LEFT JOIN string d ON d.id = m.domain_id WHERE d.value = 'streamscope' "
            "ORDER BY m.ts_ns, m.id")]
        self.params = {}
        for name, _ in self.marks:
            if name.startswith("param:") and "=" in name:
                key, value = name[len("param:"):].split("=", 1)
                self.params[key] = value
        self.measured = self.db.execute(
            "SELECT r.start_ns, r.end_ns FROM nvtx_range r JOIN string s ON s.id = r.name_id "
            "WHERE s.value = 'measured' AND r.domain_id IS NULL ORDER BY r.start_ns").fetchall()
        self.window = self.measured[0] if len(self.measured) == 1 else None
        self.ops = []
        self.api = []
        self.stream_kind = dict(self.db.execute("SELECT id, kind FROM stream"))
        if self.window is not None and self.window[1] is not None:
            self._load_window(*self.window)

    def _load_window(self, w0, w1):
        inside = "end_ns > ? AND start_ns < ?"
        for row in self.db.execute(
                "SELECT k.start_ns, k.end_ns, k.stream_id, k.correlation_id, s.value, k.graph_id, "
                "k.device_id FROM kernel k JOIN string s ON s.id = k.name_id "
                "WHERE k.end_ns > ? AND k.start_ns < ?", (w0, w1)):
            self.ops.append(Op("kernel", row[0], row[1], row[2], row[3], name=row[4],
                               graph_id=row[5], device=row[6]))
        for row in self.db.execute(
                "SELECT start_ns, end_ns, stream_id, correlation_id, bytes, copy_kind, src_kind, "
                f"dst_kind, is_async, device_id, src_device_id, dst_device_id FROM memcpy "
                f"WHERE {inside}", (w0, w1)):
            self.ops.append(Op(COPY_KINDS.get(row[5], f"copy{row[5]}"), row[0], row[1], row[2],
                               row[3], bytes=row[4], src_kind=row[6], dst_kind=row[7],
                               is_async=row[8], device=row[9], src_device=row[10],
                               dst_device=row[11]))
        for row in self.db.execute(
                "SELECT start_ns, end_ns, stream_id, correlation_id, bytes, is_async FROM memset "
                f"WHERE {inside}", (w0, w1)):
            self.ops.append(Op("memset", row[0], row[1], row[2], row[3], bytes=row[4],
                               is_async=row[5]))
        self.ops.sort(key=lambda o: (o.start, o.end))
        # API calls that started inside the window, runtime preferred over
        # driver for the same correlation id.
        for name, start, end, corr, tid, domain in self.db.execute(
                "SELECT s.value, a.start_ns, a.end_ns, a.correlation_id, a.tid, a.domain "
                "FROM api_call a JOIN string s ON s.id = a.name_id "
                "WHERE a.start_ns >= ? AND a.start_ns <= ? ORDER BY a.start_ns", (w0, w1)):
            self.api.append(Api(normalize_api_name(name), start, end, corr, tid, domain))

    # Accessors -------------------------------------------------------------

    def has_mark(self, name):
        return any(m == name for m, _ in self.marks)

    def marks_with_prefix(self, prefix):
        return [m for m, _ in self.marks if m.startswith(prefix)]

    def param(self, key):
        if key not in self.params:
            raise TraceError(f"{self.path}: no 'param:{key}=' mark in domain 'streamscope'")
        return int(self.params[key])

    def kernels(self, name=None):
        return [o for o in self.ops if o.category == "kernel" and (name is None or o.name == name)]

    def copies(self, category):
        return [o for o in self.ops if o.category == category]

    def devices_used(self):
        return sorted({o.device for o in self.ops})

    def api_calls(self, name):
        return [a for a in self.api if a.name == name]

    def runtime_call_for(self, op):
        calls = [a for a in self.api if a.correlation == op.correlation and a.domain == 1]
        if not calls:
            calls = [a for a in self.api if a.correlation == op.correlation]
        return calls[0] if calls else None

    def legacy_stream_ids(self):
        ids = {sid for sid, kind in self.stream_kind.items() if kind == LEGACY_STREAM_KIND}
        if self.has_context_table:
            ids |= {r[0] for r in self.db.execute(
                "SELECT null_stream_id FROM context WHERE null_stream_id IS NOT NULL")}
        return ids

    def copy_engines(self):
        if not self.has_device_table:
            return None
        row = self.db.execute("SELECT MIN(async_engine_count) FROM device").fetchone()
        return row[0] if row else None

    def ranges(self, name):
        w0, w1 = self.window
        return self.db.execute(
            "SELECT r.start_ns, r.end_ns, r.tid FROM nvtx_range r JOIN string s ON s.id = r.name_id "
            "WHERE s.value = ? AND r.domain_id IS NULL AND r.start_ns >= ? AND r.start_ns <= ? "
            "ORDER BY r.start_ns", (name, w0, w1)).fetchall()


class Report:
    """Collects check results; prints one line each."""

    def __init__(self, label):
        self.label = label
        self.failures = 0

    def check(self, ok, message):
        print(f"  {'ok  ' if ok else 'FAIL'} {message}")
        if not ok:
            self.failures += 1
        return ok

    def info(self, message):
        print(f"  info {message}")


# Checks shared by every variant ---------------------------------------------

def check_annotations(variant, trace, report):
    report.check(trace.has_mark(f"workload={variant}"),
                 f"mark 'workload={variant}' in domain 'streamscope'")
    report.check(len(trace.measured) == 1,
                 f"exactly one default-domain range 'measured' (found {len(trace.measured)})")
    if trace.window is None:
        return False
    closed = trace.window[1] is not None
    report.check(closed, "the 'measured' range is closed")
    validation = trace.marks_with_prefix("validation=")
    if variant == "racy":
        report.check(len(validation) == 1,
                     f"one validation mark (racy may fail by design): {validation}")
    else:
        report.check(validation == ["validation=passed"],
                     f"validation=passed (found {validation or 'no validation mark'})")
    report.check(bool(trace.params), f"param: marks present ({len(trace.params)})")
    return closed


def expected_work(variant, trace):
    """{kernel name: count}, {copy category: (count, bytes each or None)}."""
    if variant in CHUNK_VARIANTS:
        n = trace.param("chunks") * trace.param("iterations")
        chunk = trace.param("chunk_mib") * MIB
        kernels = {"ChunkTransform": n}
        if variant == "legacy_default":
            kernels["LegacyStreamTick"] = n
        return kernels, {"H2D": (n, chunk), "D2H": (n, chunk)}
    if variant in ("launch_individual", "launch_graph"):
        return ({"TinyStep": trace.param("kernels") * trace.param("iterations")},
                {"H2D": (0, None), "D2H": (1, 128)})
    if variant == "concurrent_kernels":
        streams, iterations = trace.param("streams"), trace.param("iterations")
        return ({"SpinCompute": streams * iterations},
                {"H2D": (0, None),
                 "D2H": (streams, iterations * trace.param("blocks") * 128 * 4)})
    if variant == "persistent_kernel":
        return ({"PersistentWorker": 1},
                {"H2D": (0, None), "D2H": (1, trace.param("items") * 128 * 4)})
    if variant == "peer_overlap":
        chunks, words = trace.param("chunks"), trace.param("blocks") * 128
        # Two GPUs: peer copies; one GPU: the same copies are device-to-device.
        peer = "P2P" if len(trace.devices_used()) >= 2 else "D2D"
        return ({"SpinCompute": 2 * chunks}, {"H2D": (0, None), peer: (2 * chunks, words * 4)})
    if variant == "library_gemm":
        # cuBLAS picks its kernels (names and how many per SGEMM vary by
        # version): check_library_gemm counts them.
        return (None, {"H2D": (0, None), "D2H": (1, 128)})
    if variant == "long_startup":
        n = trace.param("iterations")
        return ({"SpinCompute": n}, {"H2D": (0, None), "D2H": (1, n * 2 * 128 * 4)})
    if variant == "tiny_sync":
        n = trace.param("iterations")
        return ({"TinyStep": trace.param("kernels") * n},
                {"H2D": (0, None), "D2H": (n + 1, None)})
    if variant == "slow_first_launch":
        n = trace.param("kernels")
        return ({"SpinCompute": n}, {"H2D": (0, None), "D2H": (1, n * 2 * 128 * 4)})
    raise TraceError(f"unknown variant {variant}")


def check_work(variant, trace, report):
    kernels, copies = expected_work(variant, trace)
    seen = {}
    for op in trace.kernels():
        seen[op.name] = seen.get(op.name, 0) + 1
    if kernels is not None:
        report.check(seen == kernels, f"kernels in the window {seen} == expected {kernels}")
    for category, (count, size) in copies.items():
        ops = trace.copies(category)
        sizes = sorted({o.bytes for o in ops})
        ok = len(ops) == count and (size is None or not ops or sizes == [size])
        report.check(ok, f"{category} copies: {len(ops)} of sizes {sizes} == expected {count}"
                         + (f" of {size} B" if size is not None else ""))


# Variant properties -----------------------------------------------------------

def check_no_overlap(trace, report, ops=None):
    ops = trace.ops if ops is None else ops
    worst, pair = max_pairwise_overlap(ops)
    report.check(worst <= TOLERANCE_NS,
                 f"no two GPU ops overlap (largest intersection {worst} ns"
                 + (f": {describe(pair[0])} and {describe(pair[1])})" if pair else ")"))


def check_overlap_present(trace, report, first, second, label):
    a = trace.kernels() if first == "kernel" else trace.copies(first)
    b = trace.kernels() if second == "kernel" else trace.copies(second)
    worst, pair = max_cross_stream_overlap(a, b)
    total = total_cross_stream_overlap(a, b) if first != second else 0
    report.check(worst > TOLERANCE_NS,
                 f"{label} overlap across streams present (largest {worst} ns"
                 + (f", summed {ms(total)}" if total else "")
                 + (f": {describe(pair[0])} || {describe(pair[1])})" if pair else ")"))


def check_sequential(trace, report):
    streams = {o.stream for o in trace.ops}
    report.check(len(streams) == 1, f"all GPU ops on one stream (streams {sorted(streams)})")
    check_no_overlap(trace, report)


def check_pinned(trace, report):
    h2d, d2h = trace.copies("H2D"), trace.copies("D2H")
    report.check(all(o.src_kind == PINNED for o in h2d) and all(o.dst_kind == PINNED for o in d2h),
                 "host side of every copy is pinned memory")


def check_overlapped(trace, report):
    check_pinned(trace, report)
    streams = {o.stream for o in trace.ops}
    report.check(len(streams) >= 2, f"work spread over {len(streams)} streams")
    check_overlap_present(trace, report, "H2D", "kernel", "H2D||kernel")
    check_overlap_present(trace, report, "kernel", "D2H", "kernel||D2H")
    engines = trace.copy_engines()
    if engines is not None and engines < 2:
        report.info(f"device has {engines} copy engine(s): H2D||D2H not possible, not checked")
    else:
        check_overlap_present(trace, report, "H2D", "D2H", "H2D||D2H")


def check_pageable(trace, report):
    h2d, d2h = trace.copies("H2D"), trace.copies("D2H")
    report.check(all(o.src_kind == PAGEABLE for o in h2d) and all(o.dst_kind == PAGEABLE for o in d2h),
                 "host side of every copy is pageable memory")
    copy_ns = api_ns = 0
    unmatched = 0
    for op in h2d + d2h:
        call = trace.runtime_call_for(op)
        if call is None:
            unmatched += 1
            continue
        copy_ns += op.end - op.start
        api_ns += call.end - call.start
    report.check(unmatched == 0, f"every copy has its submitting API call ({unmatched} without)")
    # A pinned cudaMemcpyAsync returns in microseconds; a pageable one holds
    # the host thread about as long as the copy itself.
    report.check(copy_ns > 0 and api_ns >= copy_ns // 2,
                 f"copy API calls hold the host: API time {ms(api_ns)} >= half of copy time {ms(copy_ns)}")


def check_legacy_default(trace, report):
    ticks = trace.kernels("LegacyStreamTick")
    legacy = trace.legacy_stream_ids()
    tick_streams = {o.stream for o in ticks}
    if legacy:
        report.check(tick_streams <= legacy,
                     f"LegacyStreamTick kernels on the legacy default stream {sorted(legacy)} "
                     f"(found on {sorted(tick_streams)})")
    else:
        report.info("trace names no legacy stream (stream kind 1 / context.null_stream_id); "
                    "using the LegacyStreamTick stream")
        legacy = tick_streams
    chunk_ops = [o for o in trace.ops if o.stream not in legacy]
    chunk_streams = {o.stream for o in chunk_ops}
    report.check(len(chunk_streams) >= 2,
                 f"chunk work on >= 2 other streams (found {sorted(chunk_streams)})")
    kinds = [trace.stream_kind.get(s) for s in sorted(chunk_streams)]
    if all(k not in (None, 0) for k in kinds):
        report.check(all(k == 3 for k in kinds), f"chunk streams are blocking (stream kinds {kinds} == 3)")
    else:
        report.info(f"stream kinds of the chunk streams not all known ({kinds})")
    legacy_ops = [o for o in trace.ops if o.stream in legacy]
    worst = 0
    for a in legacy_ops:
        for b in chunk_ops:
            worst = max(worst, intersection(a, b))
    report.check(worst <= TOLERANCE_NS,
                 f"no blocking-stream op overlaps a legacy-stream op (largest {worst} ns)")
    check_no_overlap(trace, report)


def check_implicit_sync(trace, report):
    n = trace.param("chunks") * trace.param("iterations")
    for name in ("cudaMalloc", "cudaMemset", "cudaFree"):
        calls = trace.api_calls(name)
        report.check(len(calls) >= n, f"{len(calls)} {name} calls in the window (>= {n})")
    memsets = trace.copies("memset")
    report.check(len(memsets) == n and all(o.is_async == 0 for o in memsets),
                 f"{len(memsets)} synchronous memsets in the window (== {n})")
    # Informational: did each cudaFree wait for the work submitted before it?
    drained = 0
    frees = trace.api_calls("cudaFree")
    for free in frees:
        before = [o for o in trace.ops if (c := trace.runtime_call_for(o)) and c.end <= free.start]
        if all(o.end <= free.end + TOLERANCE_NS for o in before):
            drained += 1
    report.info(f"{drained} of {len(frees)} cudaFree calls returned only after all earlier GPU work ended")


def check_cpu_starved(trace, report):
    n = trace.param("chunks") * trace.param("iterations")
    w0, w1 = trace.window
    prepares = trace.ranges("host_prepare")
    report.check(len(prepares) == n, f"{len(prepares)} 'host_prepare' ranges in the window (== {n})")
    gaps = [g for g in idle_gaps(trace.ops, w0, w1) if g[1] - g[0] >= 1_000_000]
    inner = [g for g in gaps if g[0] > w0 and g[1] < w1]  # between GPU ops
    report.check(len(inner) >= n - 1,
                 f"{len(inner)} device idle gaps >= 1 ms between GPU ops (>= {n - 1}); "
                 f"idle total {ms(sum(g[1] - g[0] for g in gaps))}")
    explained = 0
    for g0, g1 in inner:
        covered = sum(max(0, min(g1, r1) - max(g0, r0)) for r0, r1, _ in prepares if r1 is not None)
        if covered * 2 >= g1 - g0:
            explained += 1
    report.check(explained == len(inner),
                 f"{explained} of {len(inner)} such gaps are mostly inside 'host_prepare'")


def inter_kernel_gaps(trace, name):
    kernels = sorted(trace.kernels(name), key=lambda o: o.start)
    return sum(max(0, b.start - a.end) for a, b in zip(kernels, kernels[1:]))


def check_launch_individual(trace, report, related):
    gaps = inter_kernel_gaps(trace, "TinyStep")
    report.check(gaps > 0, f"gaps between consecutive TinyStep kernels sum to {ms(gaps)} (> 0)")
    streams = {o.stream for o in trace.kernels("TinyStep")}
    report.check(len(streams) == 1, f"all TinyStep kernels on one stream ({sorted(streams)})")
    if "launch_graph" in related:
        compare_launch(trace, related["launch_graph"], report)


def check_launch_graph(trace, report, related):
    kernels = trace.kernels("TinyStep")
    in_graph = sum(1 for o in kernels if o.graph_id is not None)
    report.check(in_graph == len(kernels),
                 f"{in_graph} of {len(kernels)} TinyStep kernels carry a graph id")
    report.info(f"gaps between consecutive TinyStep kernels sum to {ms(inter_kernel_gaps(trace, 'TinyStep'))}")
    if "launch_individual" in related:
        compare_launch(related["launch_individual"], trace, report)
    else:
        report.info("no launch_individual trace given (--related): gap comparison not made")


def compare_launch(individual, graph, report):
    a = individual.kernels("TinyStep")
    b = graph.kernels("TinyStep")
    report.check(len(a) == len(b), f"same TinyStep count in both ({len(a)} vs {len(b)})")
    ga, gb = inter_kernel_gaps(individual, "TinyStep"), inter_kernel_gaps(graph, "TinyStep")
    report.check(ga > gb, f"individual launches leave more inter-kernel gap ({ms(ga)}) "
                          f"than the graph ({ms(gb)})")


def check_pipeline(variant, trace, report):
    h2d = sorted(trace.copies("H2D"), key=lambda o: o.start)
    kern = sorted(trace.kernels("ChunkTransform"), key=lambda o: o.start)
    d2h = sorted(trace.copies("D2H"), key=lambda o: o.start)
    stage_streams = [{o.stream for o in ops} for ops in (h2d, kern, d2h)]
    report.check(all(len(s) == 1 for s in stage_streams) and
                 len(set().union(*stage_streams)) == 3,
                 f"H2D, kernel and D2H stages each on their own stream {stage_streams}")
    n = min(len(h2d), len(kern), len(d2h))
    slots = trace.param("slots")
    late_kernel = sum(1 for i in range(n) if kern[i].start < h2d[i].end - TOLERANCE_NS)
    late_d2h = sum(1 for i in range(n) if d2h[i].start < kern[i].end - TOLERANCE_NS)
    report.check(late_kernel == 0, f"every kernel starts after its chunk's H2D ended "
                                   f"({late_kernel} early)")
    report.check(late_d2h == 0, f"every D2H starts after its chunk's kernel ended ({late_d2h} early)")
    refills = sum(1 for i in range(n - slots) if h2d[i + slots].start < kern[i].end - TOLERANCE_NS)
    reused_out = sum(1 for i in range(n - slots) if kern[i + slots].start < d2h[i].end - TOLERANCE_NS)
    report.check(reused_out == 0, f"no kernel overwrites an output slot before its D2H ended "
                                  f"({reused_out} early)")
    total = trace.param("chunks") * trace.param("iterations")
    reuse = max(0, total - slots)
    waits = len(trace.api_calls("cudaStreamWaitEvent"))
    records = len(trace.api_calls("cudaEventRecord"))
    if variant == "racy":
        report.check(waits == 2 * total + reuse,
                     f"{waits} cudaStreamWaitEvent calls == {2 * total + reuse} (the refill wait is missing)")
        report.info(f"race observed in time: {refills} of {reuse} input-slot refills started "
                    f"before the kernel reading that slot ended")
    else:
        report.check(waits == 2 * total + 2 * reuse,
                     f"{waits} cudaStreamWaitEvent calls == {2 * total + 2 * reuse}")
        report.check(refills == 0, f"no H2D refills an input slot before the kernel reading it "
                                   f"ended ({refills} early)")
        check_overlap_present(trace, report, "H2D", "kernel", "H2D||kernel")
        check_overlap_present(trace, report, "kernel", "D2H", "kernel||D2H")
    report.check(records == 3 * total, f"{records} cudaEventRecord calls == {3 * total}")


def check_concurrent_kernels(trace, report):
    kernels = trace.kernels("SpinCompute")
    streams = {o.stream for o in kernels}
    report.check(len(streams) == trace.param("streams"),
                 f"SpinCompute kernels on {len(streams)} streams (== {trace.param('streams')})")
    check_overlap_present(trace, report, "kernel", "kernel", "kernel||kernel")
    # Largest number of kernels running at once.
    events = sorted([(o.start, 1) for o in kernels] + [(o.end, -1) for o in kernels],
                    key=lambda e: (e[0], e[1]))
    running = peak = 0
    for _, delta in events:
        running += delta
        peak = max(peak, running)
    report.info(f"at most {peak} kernels ran at the same time")


def check_persistent(trace, report):
    kernels = trace.kernels()
    report.check(len(kernels) == 1, f"exactly one kernel in the window ({len(kernels)})")
    launches = len(trace.api_calls("cudaLaunchKernel"))
    report.check(launches == 1, f"exactly one cudaLaunchKernel call in the window ({launches})")
    if kernels:
        w0, w1 = trace.window
        report.info(f"PersistentWorker ran {ms(kernels[0].end - kernels[0].start)} of the "
                    f"{ms(w1 - w0)} window")


def check_misleading_timing(trace, report):
    h2d = sorted(trace.copies("H2D"), key=lambda o: o.start)
    if not report.check(bool(h2d), "copies present"):
        return
    timed = h2d[0].stream
    iterations = trace.param("iterations")
    on_timed = [o for o in trace.kernels("ChunkTransform") if o.stream == timed]
    report.check(len(on_timed) == iterations,
                 f"the events' stream {timed} runs {len(on_timed)} chunk kernel(s) (== {iterations})")
    others = [o for o in trace.ops if o.stream != timed]
    report.check(len(others) == 3 * (trace.param("chunks") - 1) * iterations,
                 f"{len(others)} ops on other streams, outside the events' reach")
    first_stop = min((o.end for o in trace.copies("D2H") if o.stream == timed), default=None)
    later = [o for o in others if first_stop is not None and o.end > first_stop]
    report.check(bool(later), f"{len(later)} ops on other streams still ran after the timed "
                              f"chunk's last op ended")
    elapsed = len(trace.api_calls("cudaEventElapsedTime"))
    report.check(elapsed == iterations, f"{elapsed} cudaEventElapsedTime calls (== {iterations})")
    values = {}
    for name in trace.marks_with_prefix("result:"):
        key, _, value = name[len("result:"):].partition("=")
        values[key] = value
    try:
        event_ms = float(values["event_elapsed_ms"])
        host_ms = float(values["host_measured_ms"])
        report.check(event_ms < host_ms, f"event-measured {event_ms} ms < host-measured {host_ms} ms")
    except (KeyError, ValueError):
        report.check(False, f"result:event_elapsed_ms and result:host_measured_ms marks ({values})")


def check_peer_overlap(trace, report):
    devices = trace.devices_used()
    if len(devices) < 2:
        report.info(f"ran on one GPU (devices {devices}): the peer copies are device-to-device; "
                    "the two-GPU property is checked on a two-GPU machine only")
        check_overlap_present(trace, report, "D2D", "kernel", "D2D||kernel")
        return
    report.check(len(devices) == 2, f"GPU ops on two devices ({devices})")
    copies = trace.copies("P2P")
    pairs = sorted({(o.src_device, o.dst_device) for o in copies})
    report.check(set(pairs) == {(devices[0], devices[1]), (devices[1], devices[0])},
                 f"peer copies in both directions with source and destination devices ({pairs})")
    for device in devices:
        kernels = [o for o in trace.kernels() if o.device == device]
        mine = [o for o in copies if o.device == device]
        worst, pair = max_cross_stream_overlap(mine, kernels)
        report.check(worst > TOLERANCE_NS,
                     f"device {device}: a peer copy overlaps a kernel of another stream (largest "
                     f"{worst} ns" + (f": {describe(pair[0])} || {describe(pair[1])})" if pair else ")"))



def check_every_op_submitted(trace, report):
    """Every GPU op in the window links to the API call that submitted it."""
    correlations = {a.correlation for a in trace.api}
    orphans = [o for o in trace.ops if o.correlation not in correlations]
    report.check(not orphans, f"{len(trace.ops) - len(orphans)} of {len(trace.ops)} ops have "
                              f"their submitting API call (orphans: {[describe(o) for o in orphans[:3]]})")


def check_library_gemm(trace, report):
    check_every_op_submitted(trace, report)
    n = trace.param("iterations")
    gemms = n * trace.param("kernels")
    tiny = trace.kernels("TinyStep")
    others = len(trace.kernels()) - len(tiny)
    report.check(len(tiny) == n, f"{len(tiny)} TinyStep kernels (== {n} steps)")
    report.check(others >= gemms and others % gemms == 0,
                 f"{others} cuBLAS kernels: a whole number of kernels per SGEMM ({gemms} SGEMMs)")
    drivers = [a for a in trace.api_calls("cuLaunchKernelEx")]
    launched = {a.correlation for a in drivers}
    report.check(len(tiny) > 0 and all(o.correlation in launched for o in tiny),
                 f"every TinyStep was submitted by cuLaunchKernelEx ({len(drivers)} such calls)")
    prepares = trace.ranges("host_prepare")
    report.check(len(prepares) == n, f"{len(prepares)} 'host_prepare' ranges (== {n})")
    w0, w1 = trace.window
    gaps = [g for g in idle_gaps(trace.ops, w0, w1) if g[0] > w0 and g[1] < w1]
    idle = sum(g1 - g0 for g0, g1 in gaps)
    in_prepare = sum(max(0, min(g1, r1) - max(g0, r0)) for g0, g1 in gaps
                     for r0, r1, _ in prepares if r1 is not None)
    report.check(idle > 0 and in_prepare * 2 > idle,
                 f"device idle between ops {ms(idle)}, {ms(in_prepare)} of it inside host_prepare")


def check_long_startup(trace, report):
    steps = trace.ranges("step")
    n = trace.param("iterations")
    report.check(len(steps) == n, f"{len(steps)} 'step' ranges (== {n})")
    first_gpu = trace.db.execute(
        "SELECT MIN(start_ns) FROM (SELECT start_ns FROM kernel UNION ALL "
        "SELECT start_ns FROM memcpy UNION ALL SELECT start_ns FROM memset)").fetchone()[0]
    trace_start = trace.db.execute("SELECT MIN(start_ns) FROM api_call").fetchone()[0]
    startup = trace.param("startup_ms") * 1_000_000
    report.check(first_gpu - trace_start >= startup,
                 f"first GPU op {ms(first_gpu - trace_start)} after the first API call "
                 f"(>= start-up {ms(startup)})")
    steady = steps[-1][1] - steps[0][0] if steps and steps[-1][1] else 0
    report.check(0 < steady < startup, f"steady state {ms(steady)} shorter than the start-up")


def check_tiny_sync(trace, report):
    check_every_op_submitted(trace, report)
    n = trace.param("iterations")
    syncs = trace.api_calls("cudaStreamSynchronize")
    report.check(len(syncs) >= n, f"{len(syncs)} cudaStreamSynchronize calls (>= {n})")
    small = [o for o in trace.copies("D2H") if o.bytes == 8]
    report.check(len(small) == n and all(o.dst_kind == PAGEABLE for o in small),
                 f"{len(small)} 8-byte D2H copies to pageable memory (== {n})")
    graphs = {o.graph_id for o in trace.kernels("TinyStep")}
    report.check(None not in graphs and len(graphs) >= 1, f"TinyStep kernels come from a graph")


def check_slow_first_launch(trace, report):
    launches = trace.api_calls("cudaLaunchKernel")
    report.check(len(launches) == trace.param("kernels"),
                 f"{len(launches)} cudaLaunchKernel calls (== {trace.param('kernels')})")
    if len(launches) >= 3:
        durations = sorted(a.end - a.start for a in launches[1:])
        median = durations[len(durations) // 2]
        first = launches[0].end - launches[0].start
        report.check(first >= 5 * median,
                     f"first launch {ms(first)} >= 5x the median of the others ({ms(median)})")
    kernels = sorted(trace.kernels("SpinCompute"), key=lambda o: o.start)
    busy = sum(o.end - o.start for o in kernels[1:])
    span = kernels[-1].end - kernels[1].start if len(kernels) > 2 else 0
    report.check(span > 0 and busy * 10 >= span * 9,
                 f"after the first kernel the GPU is busy {ms(busy)} of {ms(span)} (>= 90%): "
                 f"not launch-bound")

PROPERTIES = {
    "sequential": ("one stream, no two GPU ops overlap", check_sequential),
    "overlapped": ("pinned; H2D||kernel, kernel||D2H, H2D||D2H across streams", check_overlapped),
    "pageable": ("pageable copies whose API calls hold the host", check_pageable),
    "legacy_default": ("ticks on the legacy stream; nothing overlaps it or anything else",
                       check_legacy_default),
    "implicit_sync": ("cudaMalloc/cudaMemset/cudaFree calls and sync memsets in the window",
                      check_implicit_sync),
    "cpu_starved": ("idle gaps >= 1 ms between ops, mostly inside host_prepare", check_cpu_starved),
    "launch_individual": ("inter-kernel gaps > 0 (more than launch_graph's if given)",
                          check_launch_individual),
    "launch_graph": ("kernels from a graph; fewer gaps than launch_individual if given",
                     check_launch_graph),
    "event_pipeline": ("stage order respected, all waits present, stages overlap",
                       lambda t, r: check_pipeline("event_pipeline", t, r)),
    "racy": ("the refill wait is missing (race reported, not required to show)",
             lambda t, r: check_pipeline("racy", t, r)),
    "concurrent_kernels": ("kernel||kernel across streams", check_concurrent_kernels),
    "persistent_kernel": ("one kernel, one launch in the window", check_persistent),
    "misleading_timing": ("most work outside the events' stream; event time < host time",
                          check_misleading_timing),
    "peer_overlap": ("two devices, peer copies both ways, P2P||kernel on each device",
                     check_peer_overlap),
    "library_gemm": ("every op has its submitter; idle gaps mostly inside host_prepare",
                     check_library_gemm),
    "long_startup": ("start-up before the first GPU op longer than the steady state of steps",
                     check_long_startup),
    "tiny_sync": ("a graph, an 8-byte pageable D2H and a sync per iteration", check_tiny_sync),
    "slow_first_launch": ("first launch >= 5x the median; GPU busy >= 90% after it",
                          check_slow_first_launch),
}


def check_trace(variant, path, related_paths):
    """Runs every check; returns the exit code."""
    print(f"{variant}: {path}")
    try:
        trace = Trace(path)
        related = {name: Trace(p) for name, p in related_paths.items()}
        report = Report(variant)
        if check_annotations(variant, trace, report):
            check_work(variant, trace, report)
            _, check = PROPERTIES[variant]
            if variant in ("launch_individual", "launch_graph"):
                check(trace, report, related)
            else:
                check(trace, report)
    except TraceError as e:
        print(f"  ERROR {e}")
        return EXIT_USAGE
    print(f"{variant}: {'PASSED' if report.failures == 0 else f'FAILED ({report.failures} checks)'}")
    return EXIT_OK if report.failures == 0 else EXIT_FAILED


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", nargs="?")
    parser.add_argument("trace", nargs="?")
    parser.add_argument("--related", action="append", default=[], metavar="VARIANT=TRACE")
    parser.add_argument("--fixture-dir")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    if args.list:
        for name in VARIANTS:
            print(f"{name:19} {PROPERTIES[name][0]}")
        return EXIT_OK
    if args.variant not in VARIANTS:
        print(f"check_workload_trace: unknown or missing variant {args.variant!r}; "
              f"variants: {', '.join(VARIANTS)}", file=sys.stderr)
        return EXIT_USAGE
    related = {}
    for item in args.related:
        name, sep, path = item.partition("=")
        if not sep or name not in VARIANTS:
            print(f"check_workload_trace: --related needs VARIANT=TRACE, got {item!r}", file=sys.stderr)
            return EXIT_USAGE
        related[name] = path
    if args.fixture_dir is not None:
        if args.trace is not None:
            print("check_workload_trace: give either TRACE or --fixture-dir", file=sys.stderr)
            return EXIT_USAGE
        path = os.path.join(args.fixture_dir, f"{args.variant}.sqlite")
        if not os.path.isfile(path):
            print(f"SKIPPED: no recorded trace {path} (record it on a GPU machine with "
                  f"tools/record_fixtures.sh)")
            return EXIT_SKIPPED
        for other in ("launch_individual", "launch_graph"):
            candidate = os.path.join(args.fixture_dir, f"{other}.sqlite")
            if other != args.variant and args.variant.startswith("launch_") and os.path.isfile(candidate):
                related.setdefault(other, candidate)
        return check_trace(args.variant, path, related)
    if args.trace is None:
        print("check_workload_trace: missing TRACE (or --fixture-dir DIR)", file=sys.stderr)
        return EXIT_USAGE
    return check_trace(args.variant, args.trace, related)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
