#!/usr/bin/env python3
"""Which call submitted each GPU op of a streamscope trace.

Usage: submitter_check.py TRACE [LABEL]
Prints one line:
  LABEL: ops=N submitted=M (P%) runtime=R driver=D internal=I none=U \
    | nested_driver=K shared_ids=S | unmatched: NAME xC, ...
- runtime/driver/internal: ops whose correlation id matches an api_call of
  that kind (runtime preferred when an id has both, as the analyzer does);
  internal = CUPTI's internal launches (driver domain, cbid 0);
- nested_driver: driver api_call rows that lie inside a runtime call on the
  same thread (a runtime call stored twice; expected 0 with the default kinds);
- shared_ids: correlation ids held by both a runtime and a driver row;
- refused_submit_apis, zero_ts: collector_stat submit_apis_refused and
  records_dropped_zero_timestamp (None in traces from older collectors).
Exit status 0 when every op has a submitter, 1 otherwise, 2 on a bad trace."""
import sqlite3
import sys
from collections import Counter


def main():
    path = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else path
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        api = {}  # correlation id -> set of kinds
        rows = db.execute("SELECT domain, cbid, tid, start_ns, end_ns, correlation_id FROM api_call").fetchall()
        for domain, cbid, _tid, _s, _e, corr in rows:
            kind = "runtime" if domain == 1 else ("internal" if cbid == 0 else "driver")
            api.setdefault(corr, set()).add(kind)
        ops = []
        for table, name in (("kernel", "(SELECT value FROM string WHERE id = name_id)"),
                            ("memcpy", "'memcpy'"), ("memset", "'memset'")):
            ops += db.execute(f"SELECT correlation_id, {name} FROM {table} "
                              "WHERE start_ns > 0 AND end_ns > 0").fetchall()
        stats = dict(db.execute("SELECT key, value FROM collector_stat").fetchall())
        record_kinds = (db.execute("SELECT value FROM metadata WHERE key = 'record_kinds'").fetchone() or ["?"])[0]
    except sqlite3.Error as e:
        print(f"{label}: cannot read trace: {e}")
        return 2
    by = Counter()
    unmatched = Counter()
    for corr, name in ops:
        kinds = api.get(corr, set())
        kind = next((k for k in ("runtime", "driver", "internal") if k in kinds), "none")
        by[kind] += 1
        if kind == "none":
            unmatched[(name or "?")[:60]] += 1
    # Driver rows inside a runtime call on the same thread (sweep per thread).
    nested = 0
    per_tid = {}
    for domain, _cbid, tid, s, e, _corr in rows:
        per_tid.setdefault(tid, []).append((s, -e, domain))
    for calls in per_tid.values():
        calls.sort()
        open_end = -1
        for s, neg_e, domain in calls:
            if domain == 1:
                open_end = max(open_end, -neg_e)
            elif s <= open_end and -neg_e <= open_end:
                nested += 1
    shared = sum(1 for kinds in api.values() if "runtime" in kinds and len(kinds) > 1)
    n = len(ops)
    submitted = n - by["none"]
    pct = 100.0 * submitted / n if n else 100.0
    top = ", ".join(f"{k} x{v}" for k, v in unmatched.most_common(3))
    print(f"{label}: ops={n} submitted={submitted} ({pct:.1f}%) runtime={by['runtime']} "
          f"driver={by['driver']} internal={by['internal']} none={by['none']} | "
          f"nested_driver={nested} shared_ids={shared} | refused_submit_apis={stats.get('submit_apis_refused')} "
          f"zero_ts={stats.get('records_dropped_zero_timestamp')} kinds={record_kinds}"
          + (f" | unmatched: {top}" if top else ""))
    return 0 if by["none"] == 0 and n > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
