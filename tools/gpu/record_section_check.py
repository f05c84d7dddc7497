#!/usr/bin/env python3
"""Checks the traces of workloads/torch/record_section.py.
Usage: record_section_check.py TRACE TRACE2
TRACE must hold the three matmuls recorded between start and stop and
nothing from before or after (no elementwise kernels, every op inside the
capture's start/end), finished with capture_end 'record_stop'; TRACE2 (the
second session, kinds +memory) at least one kernel. Prints PASS/FAIL lines;
exit status 1 on any FAIL."""
import sqlite3
import sys

failed = False


def check(ok, what):
    global failed
    failed |= not ok
    print(("PASS " if ok else "FAIL ") + what)


def meta(db, key):
    row = db.execute("SELECT value FROM metadata WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


for i, path in enumerate(sys.argv[1:3]):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        names = [r[0] for r in db.execute(
            "SELECT s.value FROM kernel k JOIN string s ON s.id = k.name_id ORDER BY k.start_ns")]
        start = int(meta(db, "start_trace_ns") or 0)
        end = int(meta(db, "end_trace_ns") or 0)
        outside = db.execute(
            "SELECT count(*) FROM (SELECT start_ns, end_ns FROM kernel UNION ALL SELECT start_ns, end_ns"
            " FROM memcpy UNION ALL SELECT start_ns, end_ns FROM memset) WHERE start_ns < ? OR end_ns > ?",
            (start, end)).fetchone()[0]
        end_reason = meta(db, "capture_end")
        injection = meta(db, "injection")
    except (sqlite3.Error, TypeError, ValueError) as e:
        check(False, f"{path}: readable trace ({e})")
        continue
    check(end_reason == "record_stop", f"{path}: capture_end = {end_reason!r} (want 'record_stop')")
    check(injection == "api", f"{path}: injection = {injection!r} (want 'api')")
    check(outside == 0, f"{path}: {outside} ops outside [start_trace_ns, end_trace_ns]")
    if i == 0:
        elementwise = [n for n in names if "elementwise" in n]
        check(3 <= len(names) <= 6, f"{path}: {len(names)} kernels (3 matmuls: want 3..6): {names[:6]}")
        check(not elementwise, f"{path}: {len(elementwise)} elementwise kernels from before/after the section")
    else:
        check(len(names) >= 1, f"{path}: {len(names)} kernels in the second session (want >= 1)")
sys.exit(1 if failed else 0)
