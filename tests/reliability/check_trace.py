#!/usr/bin/env python3
"""Asserts what one trace of tests/reliability/reliability_ops.cu must hold.

Usage: check_trace.py TRACE [--ticks N|A:B] [--h2d N|A:B] [--d2h N|A:B]
                      [--memset N|A:B] [--end REGEX] [--no-drops]
                      [--in-flight N] [--label L]

Counts are exact (N) or a closed range (A:B). Always checked: the file opens
as SQLite, `PRAGMA integrity_check` says ok, metadata has schema_version and
pid. --end matches metadata.capture_end. --no-drops: every records_dropped_*
counter in collector_stat is 0, except records_dropped_zero_timestamp, which
must equal --in-flight (default 0): the ops still running when the process
exited, which the final flush hands over without an end. Prints one line
per check ("ok"/"FAIL") and a summary line with the figures; exits 1 on
any failure.
"""
import argparse
import os
import re
import sqlite3
import sys


def parse_range(text):
    if text is None:
        return None
    if ":" in text:
        a, b = text.split(":")
        return int(a), int(b)
    return int(text), int(text)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--ticks")
    p.add_argument("--h2d")
    p.add_argument("--d2h")
    p.add_argument("--memset")
    p.add_argument("--end")
    p.add_argument("--no-drops", action="store_true")
    p.add_argument("--in-flight", type=int, default=0)
    p.add_argument("--label", default="")
    a = p.parse_args()
    label = a.label or a.trace
    failures = []

    def expect(what, cond, detail=""):
        print(("ok   " if cond else "FAIL ") + f"{label}: {what}" + (f" ({detail})" if detail else ""))
        if not cond:
            failures.append(what)

    if not os.path.isfile(a.trace):
        expect("trace file exists", False, a.trace)
        return 1
    try:
        # rw, never create: a killed process's WAL is replayed on open.
        db = sqlite3.connect(f"file:{a.trace}?mode=rw", uri=True)
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        meta = dict(db.execute("SELECT key, value FROM metadata").fetchall())
        stats = dict(db.execute("SELECT key, value FROM collector_stat").fetchall())
    except sqlite3.Error as e:
        expect("opens as a streamscope trace", False, str(e))
        return 1
    expect("integrity_check ok", integrity == "ok", integrity)
    expect("metadata has schema_version and pid", "schema_version" in meta and "pid" in meta)

    def count(sql):
        return db.execute(sql).fetchone()[0]

    figures = {
        "ticks": count("SELECT count(*) FROM kernel k JOIN string s ON s.id = k.name_id "
                       "WHERE s.value LIKE '%Tick%'"),
        "h2d": count("SELECT count(*) FROM memcpy WHERE copy_kind = 1"),
        "d2h": count("SELECT count(*) FROM memcpy WHERE copy_kind = 2"),
        "memset": count("SELECT count(*) FROM memset"),
    }
    for key in ("ticks", "h2d", "d2h", "memset"):
        want = parse_range(getattr(a, key))
        if want is None:
            continue
        lo, hi = want
        shown = str(lo) if lo == hi else f"{lo}..{hi}"
        expect(f"{key} = {shown}", lo <= figures[key] <= hi, f"found {figures[key]}")
    end = meta.get("capture_end", "<missing>")
    if a.end is not None:
        expect(f"capture_end matches '{a.end}'", re.fullmatch(a.end, end) is not None, f"found {end}")
    drops = {k: v for k, v in stats.items() if k.startswith("records_dropped") or k == "buffers_request_denied"}
    if a.no_drops:
        want = {k: (a.in_flight if k == "records_dropped_zero_timestamp" else 0) for k in drops}
        expect("no dropped records" + (f" but the {a.in_flight} op(s) in flight at exit" if a.in_flight else ""),
               all(int(v) == want[k] for k, v in drops.items()) and len(drops) >= 2, str(drops))
    print(f"figures {label}: pid={meta.get('pid')} ppid={meta.get('ppid')} capture_end={end} "
          + " ".join(f"{k}={v}" for k, v in figures.items())
          + " " + " ".join(f"{k}={v}" for k, v in sorted(drops.items()))
          + f" records_written={stats.get('records_written')} flushes={stats.get('flushes')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
