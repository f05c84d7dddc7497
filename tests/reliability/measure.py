#!/usr/bin/env python3
"""Runs a command and prints its exit status, wall time and peak RSS:
"measure: rc=R wall_s=S maxrss_mb=M". Usage: measure.py CMD ARGS...
(stdin/stdout/stderr pass through; the exit status is the command's)."""
import resource
import subprocess
import sys
import time

t0 = time.monotonic()
rc = subprocess.call(sys.argv[1:])
wall = time.monotonic() - t0
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
print(f"measure: rc={rc} wall_s={wall:.2f} maxrss_mb={rss_mb:.0f}", file=sys.stderr, flush=True)
sys.exit(rc if rc >= 0 else 128 - rc)
