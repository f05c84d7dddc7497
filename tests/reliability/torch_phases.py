#!/usr/bin/env python3
"""Counts the kernels a streamscope trace holds in each phase printed by
torch_coexist.py ("phase NAME START END", trace clock) and prints them with
the trace's capture_end and drop counters: what streamscope recorded while
torch.profiler was (or had been) active. Usage: torch_phases.py TRACE STDOUT"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
meta = dict(db.execute("SELECT key, value FROM metadata").fetchall())
stats = dict(db.execute("SELECT key, value FROM collector_stat").fetchall())
parts = []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 4 and f[0] == "phase":
        n = db.execute("SELECT count(*) FROM kernel WHERE start_ns BETWEEN ? AND ?",
                       (int(f[2]), int(f[3]))).fetchone()[0]
        parts.append(f"{f[1]}={n}")
print(f"figures {sys.argv[1]}: streamscope kernels per phase (202 launched in each): {' '.join(parts)}; "
      f"total kernels={db.execute('SELECT count(*) FROM kernel').fetchone()[0]} "
      f"capture_end={meta.get('capture_end')} clock={meta.get('clock_domain')} "
      f"dropped_cupti={stats.get('records_dropped_cupti')} records_written={stats.get('records_written')}")
