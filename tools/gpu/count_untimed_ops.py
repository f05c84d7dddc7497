#!/usr/bin/env python3
"""Prints "OPS UNTIMED" for a trace: its GPU ops (kernels, copies, memsets)
and how many of them arrived without timestamps (start or end 0)."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
ops = untimed = 0
for table in ("kernel", "memcpy", "memset"):
    ops += db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    untimed += db.execute(f"SELECT count(*) FROM {table} WHERE start_ns = 0 OR end_ns = 0").fetchone()[0]
print(ops, untimed)
