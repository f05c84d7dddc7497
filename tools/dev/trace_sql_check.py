#!/usr/bin/env python3
"""Fails when code writes a streamscope trace table by hand.

  tools/dev/trace_sql_check.py [REPO_ROOT]

The tables of schema/streamscope_schema.sql are written by the collector
(collector/) and, everywhere else, by the one trace-table writer
(analyzer/convert/trace_table_writer.{h,cc}). Any other `INSERT INTO` one of
them in a tracked file is printed as FILE:LINE and fails the check (CTest:
trace_sql_test). Code that is not C++ writes a trace with `streamscope synth`
(a JSON spec of rows, written by the same writer).
"""
import os
import re
import subprocess
import sys

# The writers, the schema and its own tests (which check the DDL itself).
OWNERS = ("collector/", "schema/", "tests/schema/", "analyzer/convert/trace_table_writer.", "tools/dev/trace_sql_check.py")
# Not yet moved to the trace-table writer. Empty: every writer outside the
# collector goes through it (C++ directly, the rest through `streamscope synth`).
STILL_BY_HAND: set[str] = set()


def trace_tables(root):
    with open(os.path.join(root, "schema", "streamscope_schema.sql")) as f:
        return set(re.findall(r"CREATE TABLE (\w+)", f.read()))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    tables = trace_tables(root)
    insert = re.compile(r"INSERT\s+(?:OR\s+\w+\s+)?INTO\s+[\"'`]?(\w+)\b", re.I)
    files = subprocess.run(["git", "-C", root, "ls-files"], check=True, capture_output=True, text=True).stdout.split()
    hits, allowed = [], 0
    for rel in files:
        if rel.startswith(OWNERS):
            continue
        path = os.path.join(root, rel)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            for table in insert.findall(line):
                if table in tables:
                    if rel in STILL_BY_HAND:
                        allowed += 1
                    else:
                        hits.append(f"{rel}:{number}: INSERT INTO {table}")
    for h in hits:
        print(h + " (write it through analyzer/convert/trace_table_writer.h)")
    print(f"{len(hits)} hand-written trace inserts outside the writer; {allowed} in the {len(STILL_BY_HAND)} files "
          "not yet moved")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
