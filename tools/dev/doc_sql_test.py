#!/usr/bin/env python3
"""Runs the SQL that the documentation shows users on the bundled traces and
checks the rows, not only that the statement runs.

The queries: every `sqlite3 ... trace.sqlite "SQL"` command in README.md,
docs/*.md and analyzer/README.md (indented or fenced, continued over lines),
and every inline `SELECT ...` code span of README.md. Each runs on a copy of
every bundled streamscope trace (tests/data/*.sqlite) after
`streamscope report --save` (queries of analysis_* tables read what --save
wrote). Checks:
  * every query runs on every trace, without an SQL error;
  * every query returns rows on at least one bundled trace;
  * known answers: the README's `SELECT * FROM gpu_op WHERE category =
    'H2D'` returns exactly the trace's host-to-device copies (memcpy rows of
    copy kind 1 or 11), at least one on overlapped.sqlite; no op of any trace
    has a negative queue_delay_ns in gpu_op_with_api.

Usage: doc_sql_test.py --bin BUILD/bin [--repo ROOT]
"""
import argparse
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

DOCS = ["README.md", "docs/tutorial.md", "docs/python.md", "analyzer/README.md"]


def doc_queries(repo):
    queries = []
    for rel in DOCS:
        path = os.path.join(repo, rel)
        if not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8").read()
        # sqlite3 [options] FILE "SQL", the SQL possibly continued over indented lines.
        for m in re.finditer(r'sqlite3(?:\s+-\S+)*\s+\S+\.sqlite\s+"([^"]+)"', text):
            queries.append((rel, " ".join(m.group(1).split())))
        if rel == "README.md":
            for m in re.finditer(r"`(SELECT [^`]+)`", text):
                queries.append((rel, m.group(1)))
    return queries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--repo", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    cli = os.path.join(os.path.abspath(args.bin), "streamscope")
    queries = doc_queries(repo)
    failures = []
    if len(queries) < 4:
        failures.append("found only %d documented queries: the extraction is broken" % len(queries))
    scratch = tempfile.mkdtemp(prefix="streamscope-doc-sql-")
    rows_seen = {q: 0 for _, q in queries}
    try:
        traces = sorted(glob.glob(os.path.join(repo, "tests", "data", "*.sqlite")))
        for src in traces:
            name = os.path.basename(src)
            copy = os.path.join(scratch, name)
            shutil.copyfile(src, copy)
            r = subprocess.run([cli, "report", copy, "--save"], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append("%s: report --save failed: %s" % (name, r.stderr.strip()))
                continue
            db = sqlite3.connect(copy)
            for doc, q in queries:
                try:
                    rows_seen[q] += len(db.execute(q).fetchall())
                except sqlite3.Error as e:
                    failures.append("%s: %s: query of %s fails: %s" % (name, q, doc, e))
            h2d = db.execute("SELECT count(*) FROM gpu_op WHERE category = 'H2D'").fetchone()[0]
            copies = db.execute("SELECT count(*) FROM memcpy WHERE copy_kind IN (1, 11)").fetchone()[0]
            if h2d != copies:
                failures.append("%s: gpu_op says %d H2D ops, the memcpy table %d" % (name, h2d, copies))
            if name == "overlapped.sqlite" and h2d == 0:
                failures.append("overlapped.sqlite: the README's H2D query returns no rows")
            negative = db.execute("SELECT count(*) FROM gpu_op_with_api WHERE queue_delay_ns < 0").fetchone()[0]
            if negative:
                failures.append("%s: %d ops with a negative queue_delay_ns" % (name, negative))
            db.close()
        for q, n in rows_seen.items():
            if n == 0:
                failures.append("documented query returns no rows on any bundled trace: " + q)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("%d documented queries on %d traces: %d failures" % (len(queries), len(traces), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
