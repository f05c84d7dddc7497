"""GPU check of streamscope.record (run by tools/gpu/python_record.sh).

Records two sections of a PyTorch program, one with the context manager
and one with the decorator, doing the same work (3 matmuls + one
device-to-host copy), with 7 more matmuls between them that neither may
record. Checks with sqlite3 (pandas may be missing on the GPU machine):
  1. the context manager's trace holds kernels (> 0) and the DtoH copy;
  2. both traces hold the same number of kernels and copies: recording
     starts and stops where the block does (the 7 matmuls between the two
     recordings are in neither);
  3. capture_end is not 'running' (the stop finalized the file);
  4. `streamscope report --format json` analyzes both (exit 0), and, where
     pandas is installed, streamscope.open(...).ops has the same count;
  5. a second recording in the same process works (the decorator, after
     the context manager), and a failing start (an unwritable path) raises
     CollectorError without breaking the next recording.
Prints one line per check and 'python_record: PASS' or 'python_record: FAIL'.
"""
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import torch

import streamscope

out = Path(sys.argv[1])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def facts(path):
    con = sqlite3.connect(path)
    try:
        kernels = con.execute("SELECT COUNT(*) FROM kernel").fetchone()[0]
        d2h = con.execute("SELECT COUNT(*) FROM memcpy WHERE copy_kind = 2").fetchone()[0]
        end = dict(con.execute("SELECT key, value FROM metadata")).get("capture_end")
        return kernels, d2h, end
    finally:
        con.close()


x = torch.randn(1024, 1024, device="cuda")
host = torch.empty(1024, 1024, pin_memory=True)
torch.cuda.synchronize()


def work():
    y = x
    for _ in range(3):
        y = y @ x
    host.copy_(y, non_blocking=True)
    torch.cuda.synchronize()


work()  # warm-up: cuBLAS handles and kernels loaded outside any recording
ctx_path, deco_path = out / "ctx.sqlite", out / "deco-{n}.sqlite"
for p in out.glob("*.sqlite"):
    p.unlink()

with streamscope.record(ctx_path):
    work()
for _ in range(7):
    x @ x  # must not be recorded
torch.cuda.synchronize()


@streamscope.record(deco_path)
def decorated():
    work()


decorated()
deco = out / "deco-1.sqlite"

try:
    with streamscope.record("/proc/no/such/dir/t.sqlite"):
        pass
    check(False, "a start on an unwritable path raises CollectorError")
except streamscope.CollectorError as e:
    check(True, f"a start on an unwritable path raises CollectorError ({e})")
except OSError as e:
    check(True, f"an unwritable path is refused before the collector starts ({e})")
decorated()
check((out / "deco-2.sqlite").exists(), "a recording after a failed start works (deco-2.sqlite)")

kc, dc, ec = facts(ctx_path)
kd, dd, ed = facts(deco)
print(f"ctx: {kc} kernels, {dc} DtoH, capture_end={ec}; deco: {kd} kernels, {dd} DtoH, capture_end={ed}")
check(kc > 0 and dc >= 1, "the context manager recorded kernels and the DtoH copy")
check(kc == kd and dc == dd, "both recordings hold the same work (nothing outside the blocks)")
check(ec not in (None, "running") and ed not in (None, "running"), "stop finalized both traces")
for p in (ctx_path, deco):
    r = subprocess.run([streamscope.find_cli(), "report", str(p), "--format", "json"], stdout=subprocess.PIPE)
    ok = r.returncode == 0 and json.loads(r.stdout)["traces"][0]["summary"]["counts"]["kernels"] == facts(p)[0]
    check(ok, f"streamscope report analyzes {p.name}")
try:
    import pandas  # noqa: F401
    t = streamscope.open(ctx_path)
    check(int((t.ops["op_table"] == "kernel").sum()) == kc, "streamscope.open(ctx.sqlite).ops has every kernel")
except ImportError:
    print("skip pandas is not installed: streamscope.open not checked here")
print("python_record: " + ("PASS" if not failures else "FAIL"))
sys.exit(1 if failures else 0)
