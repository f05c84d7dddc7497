#!/usr/bin/env python3
"""Checks a streamscope trace against what a known program did.

  collector_check_trace.py known_ops TRACE   exact ops of tests/collector/known_ops.cu
  collector_check_trace.py pytorch TRACE     tests/collector/torch_ops.py
  collector_check_trace.py killed TRACE      a known_ops trace cut by kill -9
  collector_check_trace.py signal TRACE N    a known_ops trace ended by signal N

Prints one line per check and exits 1 if any failed. Needs only python3's
sqlite3 module.
"""
import collections
import os
import sqlite3
import sys

failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + (f"  [{detail}]" if detail else ""))
    if not cond:
        failures.append(what)


def rows(db, sql, *args):
    return db.execute(sql, args).fetchall()


def one(db, sql, *args):
    r = db.execute(sql, args).fetchone()
    return None if r is None else r[0]


def meta(db, key):
    return one(db, "SELECT value FROM metadata WHERE key=?", key)


def common(db, capture_end="normal_exit"):
    check(one(db, "PRAGMA user_version") == 1, "schema version 1")
    check(meta(db, "capture_end") == capture_end, f"capture_end is {capture_end}",
          meta(db, "capture_end"))
    for key in ("collector_version", "start_wall_time_ns", "start_trace_ns", "host", "pid",
                "command_line", "cuda_driver_version", "cuda_runtime_version", "cupti_version",
                "clock_domain", "capture_options", "record_kinds"):
        check(meta(db, key) not in (None, ""), f"metadata {key} present", meta(db, key))
    dropped = one(db, "SELECT coalesce(sum(value),0) FROM collector_stat WHERE key LIKE 'records_dropped%'")
    check(dropped == 0, "no dropped records", dropped)
    bad = one(db, "SELECT count(*) FROM gpu_op WHERE end_ns < start_ns OR start_ns <= 0")
    check(bad == 0, "every op has start <= end", bad)


def device_checks(db):
    d = rows(db, "SELECT name, uuid, compute_major, sm_count, async_engine_count, "
                 "concurrent_kernels, global_memory_bytes FROM device")
    check(len(d) >= 1, "device row present", d)
    if d:
        name, uuid, major, sms, engines, conc, mem = d[0]
        check(bool(name) and uuid and uuid.startswith("GPU-"), "device name and UUID", f"{name} {uuid}")
        check(major is not None and major >= 7, "compute capability", major)
        check(sms and sms > 0, "SM count", sms)
        check(engines and engines >= 1, "copy engine count", engines)
        check(conc == 1, "concurrent kernels supported", conc)
        check(mem and mem > 1 << 30, "global memory size", mem)
    return d


def known_ops(db, capture_end="normal_exit"):
    common(db, capture_end)
    device_checks(db)
    kernels = collections.Counter()
    for (name,) in rows(db, "SELECT name FROM kernel_named"):
        for k in ("k_legacy", "k_ptds", "k_blocking", "k_nonblocking"):
            if k in name and not (k == "k_blocking" and "k_nonblocking" in name):
                kernels[k] += 1
    check(dict(kernels) == {"k_legacy": 1, "k_ptds": 1, "k_blocking": 2, "k_nonblocking": 3},
          "exactly 7 kernels by name", dict(kernels))
    check(one(db, "SELECT count(*) FROM kernel") == 7, "no other kernels",
          one(db, "SELECT count(*) FROM kernel"))
    copies = sorted(rows(db, "SELECT copy_kind, src_kind, dst_kind, bytes, is_async FROM memcpy"))
    want = sorted([(1, 1, 3, 1 << 20, 0), (2, 3, 2, 1 << 20, 0), (1, 2, 3, 512 << 10, 1),
                   (2, 3, 2, 512 << 10, 1), (2, 3, 1, 64 << 10, 1)])
    check(copies == want, "copies: kinds, memory kinds, bytes, async", copies)
    sets = sorted(rows(db, "SELECT bytes, is_async, memory_kind FROM memset"))
    check(sets == [(256 << 10, 0, 3), (256 << 10, 1, 3)], "memsets", sets)
    syncs = collections.Counter(k for (k,) in rows(db, "SELECT kind FROM sync"))
    check(dict(syncs) == {1: 1, 2: 1, 3: 2, 4: 1}, "syncs: event, wait, 2 stream, context", dict(syncs))
    unjoined = rows(db, "SELECT category, detail FROM gpu_op_with_api WHERE api_name IS NULL")
    check(not unjoined, "every GPU op joined to its API call", unjoined)
    apis = collections.Counter(r for r in rows(db, "SELECT category, api_name FROM gpu_op_with_api"))
    print("     op -> API:", dict(apis))
    late = one(db, "SELECT count(*) FROM gpu_op_with_api WHERE start_ns < api_start_ns")
    check(late == 0, "no op starts before its API call", late)

    def stream_of(kname):
        return rows(db, "SELECT DISTINCT s.kind, s.priority, s.cupti_flag FROM kernel_named k "
                        "JOIN stream s ON s.id = k.stream_id WHERE k.name LIKE ?", f"%{kname}%")
    check([r[0] for r in stream_of("k_legacy")] == [1], "k_legacy on the legacy default stream",
          stream_of("k_legacy"))
    check([r[0] for r in stream_of("k_ptds")] == [2], "k_ptds on the per-thread default stream",
          stream_of("k_ptds"))
    check([r[0] for r in stream_of("k_blocking")] == [3], "k_blocking on a blocking stream",
          stream_of("k_blocking"))
    nb = stream_of("k_nonblocking")
    check([r[0] for r in nb] == [4], "k_nonblocking on a non-blocking stream", nb)
    check(nb and nb[0][1] is not None and nb[0][1] < 0, "non-blocking stream has high priority", nb)
    ranges = {r[0]: r[1:] for r in rows(db, "SELECT name, depth, is_push_pop, end_ns IS NOT NULL "
                                            "FROM nvtx_range_named")}
    print("     nvtx ranges:", ranges)
    # Every range present, closed, and recorded as opened/closed on its thread.
    for name in ("legacy", "per_thread", "blocking", "non_blocking", "inner", "startend"):
        check(name in ranges and ranges[name][2] == 1, f"NVTX range {name} recorded and closed",
              ranges.get(name))
    tops = {ranges.get(n, (None,))[0] for n in ("legacy", "per_thread", "blocking", "non_blocking")}
    check(len(tops) == 1 and None not in tops, "sibling push/pop ranges share one depth", tops)
    if "inner" in ranges and "non_blocking" in ranges:
        check(ranges["inner"][0] == ranges["non_blocking"][0] + 1, "nested push/pop range one deeper",
              (ranges["inner"], ranges["non_blocking"]))
    for name in ("legacy", "per_thread", "blocking", "non_blocking", "inner"):
        check(ranges.get(name, (0, 0))[1] == 1, f"NVTX range {name} is push/pop", ranges.get(name))
    # Known limitation (collector/README.md): CUPTI's MARKER records do not
    # say whether a range came from nvtxRangeStart/End or Push/Pop; a
    # start/end range opened and closed LIFO on one thread is taken for
    # push/pop and counts towards the depth of the ranges inside it.
    # STREAMSCOPE_STRICT_NVTX=1 makes this a failure.
    strict = os.environ.get("STREAMSCOPE_STRICT_NVTX") == "1"
    exact = ranges.get("startend", (None, None))[1] == 0 and tops == {0}
    if strict:
        check(exact, "NVTX start/end range told apart from push/pop", ranges.get("startend"))
    else:
        print(("ok   " if exact else "KNOWN ") + "NVTX start/end range told apart from push/pop"
              + ("" if exact else f"  [not distinguished: {ranges.get('startend')}; see collector/README.md]"))
    check(rows(db, "SELECT name FROM nvtx_mark_named") == [("done",)], "NVTX mark")
    inside = one(db, "SELECT count(*) FROM kernel_named k JOIN nvtx_range_named r ON r.name='legacy' "
                     "JOIN api_call a ON a.correlation_id = k.correlation_id "
                     "WHERE k.name LIKE '%k_legacy%' AND a.start_ns BETWEEN r.start_ns AND r.end_ns")
    check(inside == 1, "legacy launch inside its NVTX range (one clock domain)", inside)
    tids = one(db, "SELECT count(*) FROM thread WHERE name IS NOT NULL")
    check(tids and tids >= 1, "thread names recorded", tids)


def pytorch(db):
    common(db)
    device_checks(db)
    nk = one(db, "SELECT count(*) FROM kernel")
    check(nk >= 20, "PyTorch kernels recorded", nk)
    names = [n for (n,) in rows(db, "SELECT DISTINCT name FROM kernel_named")]
    print("     kernel names:", names[:8])
    check(any(("gemm" in n.lower() or "sgemm" in n.lower() or "cutlass" in n.lower() or "matmul" in n.lower()
               or "xmma" in n.lower() or "gemv" in n.lower()) for n in names), "a GEMM kernel by name")
    check(any("elementwise" in n.lower() or "vectorized" in n.lower() for n in names),
          "an elementwise kernel by name")
    h2d = one(db, "SELECT count(*) FROM memcpy WHERE copy_kind=1")
    d2h = one(db, "SELECT count(*) FROM memcpy WHERE copy_kind=2")
    check(h2d >= 1 and d2h >= 1, "H2D and D2H copies", (h2d, d2h))
    check(one(db, "SELECT count(*) FROM sync") >= 1, "synchronizations recorded")
    check(one(db, "SELECT count(*) FROM nvtx_range_named WHERE name='torch_step'") == 5,
          "torch.cuda.nvtx ranges recorded")
    unjoined = one(db, "SELECT count(*) FROM gpu_op_with_api WHERE api_name IS NULL")
    check(unjoined == 0, "every op joined to an API call", unjoined)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    print(f"checking {mode} trace {path}")
    if mode == "known_ops":
        known_ops(db)
    elif mode == "pytorch":
        pytorch(db)
    elif mode == "signal":
        known_ops(db, capture_end=f"signal:{sys.argv[3]}")
    elif mode == "killed":
        check(meta(db, "capture_end") == "running", "killed trace still says running",
              meta(db, "capture_end"))
        nk = one(db, "SELECT count(*) FROM kernel")
        check(nk == 7, "kernels flushed before kill -9 survive", nk)
    else:
        sys.exit(f"unknown mode {mode}")
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
