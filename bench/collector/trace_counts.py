"""Prints what a benchmark trace holds: row counts, drops, file size."""
import os
import sqlite3
import sys

path = sys.argv[1]
db = sqlite3.connect(path)
q = lambda s: db.execute(s).fetchone()[0]
flushes = q("SELECT value FROM collector_stat WHERE key='flushes'")
dropped = q("SELECT coalesce(sum(value),0) FROM collector_stat WHERE key LIKE 'records_dropped%'")
print(f"trace {os.path.basename(path)}: kernels={q('SELECT count(*) FROM kernel')} "
      f"memcpy={q('SELECT count(*) FROM memcpy')} "
      f"runtime_api={q('SELECT count(*) FROM api_call WHERE domain=1')} "
      f"driver_api={q('SELECT count(*) FROM api_call WHERE domain=2')} dropped={dropped} "
      f"overhead_rows={q('SELECT count(*) FROM cupti_overhead')} "
      f"flushes={flushes} "
      f"bad_intervals={q('SELECT count(*) FROM gpu_op WHERE end_ns < start_ns OR start_ns = 0')} "
      f"unjoined_ops={q('SELECT count(*) FROM gpu_op_with_api WHERE api_name IS NULL')} "
      f"allocation={q('SELECT count(*) FROM allocation')} "
      f"memory_access={q('SELECT count(*) FROM memory_access')} "
      f"event_op={q('SELECT count(*) FROM event_op')} "
      f"bytes={os.path.getsize(path)}")
