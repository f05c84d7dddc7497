"""What the CLI path costs next to the analysis itself (python/README.md
"Measured"). Usage: python cli_path_bench.py TRACE.sqlite [--repeat N]

For TRACE it runs, N times each (median reported):
  1. `streamscope report --format csv --output-dir DIR` with STREAMSCOPE_PROFILE=1:
     the CLI's own phases (load, analyses, render = writing the CSV files),
     wall and CPU seconds, and the process' total wall time;
  2. the same with --format json to /dev/null (render = the JSON);
  3. in Python: trace.report() (= 1. plus starting the process), then
     reading every table into DataFrames (pandas' CSV parse), then only
     the tables a notebook reads first (overlap pairs, idle devices, gap
     causes, gaps).
Prints a markdown table. The CPU columns are the reliable ones on a
shared machine (wall times stretch with the load average, printed too).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import streamscope

PHASE = re.compile(r"streamscope profile: (\S+)\s+([\d.]+) s wall\s+([\d.]+) s cpu\s+(\d+) MiB peak")


def profile(args):
    env = dict(os.environ, STREAMSCOPE_PROFILE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([str(streamscope.find_cli()), *args], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    phases = {}
    for m in PHASE.finditer(proc.stderr):
        name, w, c, peak = m.group(1), float(m.group(2)), float(m.group(3)), int(m.group(4))
        pw, pc, _ = phases.get(name, (0.0, 0.0, 0))
        phases[name] = (pw + w, pc + c, peak)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, phases


def split(phases):
    """(load, analyses, render) as (wall, cpu) pairs."""
    load = phases.get("load", (0, 0, 0))
    render = phases.get("render", (0, 0, 0))
    rest = [v for k, v in phases.items() if k not in ("load", "render", "start")]
    analyses = (sum(v[0] for v in rest), sum(v[1] for v in rest))
    peak = max((v[2] for v in phases.values()), default=0)
    return load[:2], analyses, render[:2], peak


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = fn()
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (children1.ru_utime - children0.ru_utime) + (children1.ru_stime - children0.ru_stime)
    return out, time.perf_counter() - t0, time.process_time() - c0, child_cpu


def med(xs):
    return statistics.median(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    trace = streamscope.open(a.trace)
    rows = {k: [] for k in ("csv", "json", "py_report", "py_all", "py_first", "sizes")}
    for _ in range(a.repeat):
        with tempfile.TemporaryDirectory() as d:
            wall, cpu, ph = profile(["report", a.trace, "--format", "csv", "--output-dir", str(Path(d) / "t")])
            rows["csv"].append((wall, cpu, split(ph)))
            rows["sizes"].append(sum(p.stat().st_size for p in (Path(d) / "t").glob("*.csv")))
            # The CLI refuses to overwrite a file (/dev/null included): a new one.
            wall, cpu, ph = profile(["report", a.trace, "--format", "json", "-o", str(Path(d) / "r.json")])
            rows["json"].append((wall, cpu, split(ph)))
        report, w, c, child = timed(lambda: trace.report())
        rows["py_report"].append((w, c, child))
        _, w, c, _ = timed(lambda: [report.table(n) for n in report.table_names])
        rows["py_all"].append((w, c))
        fresh = trace.report()
        _, w, c, _ = timed(lambda: (fresh.overlap_pairs, fresh.idle_devices, fresh.gap_causes, fresh.gaps))
        rows["py_first"].append((w, c))
    rowcount = sum(len(report.table(n)) for n in report.table_names)

    def cli_line(name, key):
        load_w = med([r[2][0][0] for r in rows[key]]); load_c = med([r[2][0][1] for r in rows[key]])
        an_w = med([r[2][1][0] for r in rows[key]]); an_c = med([r[2][1][1] for r in rows[key]])
        re_w = med([r[2][2][0] for r in rows[key]]); re_c = med([r[2][2][1] for r in rows[key]])
        tot_w = med([r[0] for r in rows[key]]); tot_c = med([r[1] for r in rows[key]])
        peak = med([r[2][3] for r in rows[key]])
        print(f"| {name} | {load_w:.2f} / {load_c:.2f} | {an_w:.2f} / {an_c:.2f} | {re_w:.2f} / {re_c:.2f} "
              f"| {tot_w:.2f} / {tot_c:.2f} | {peak} MiB |")

    print(f"Trace: {a.trace}: {len(trace.ops)} ops; load average {os.getloadavg()[0]:.1f}; "
          f"median of {a.repeat}; seconds as wall / CPU\n")
    print("| CLI run | load | analyses | render | process total | peak RSS (CLI) |")
    print("|---|---|---|---|---|---|")
    cli_line("report --format csv --output-dir DIR", "csv")
    cli_line("report --format json", "json")
    print(f"\nCSV written: {med(rows['sizes']) / 2**20:.0f} MiB, {rowcount} rows in 25 tables\n")
    print("| Python step | wall | CPU (Python) | CPU (CLI child) |")
    print("|---|---|---|---|")
    r = rows["py_report"]
    print(f"| trace.report() (runs the CLI) | {med([x[0] for x in r]):.2f} | {med([x[1] for x in r]):.2f} "
          f"| {med([x[2] for x in r]):.2f} |")
    r = rows["py_all"]
    print(f"| read all 25 tables into DataFrames | {med([x[0] for x in r]):.2f} | {med([x[1] for x in r]):.2f} | - |")
    r = rows["py_first"]
    print(f"| read overlap_pairs, idle_devices, gap_causes, gaps | {med([x[0] for x in r]):.2f} "
          f"| {med([x[1] for x in r]):.2f} | - |")


if __name__ == "__main__":
    sys.exit(main())
