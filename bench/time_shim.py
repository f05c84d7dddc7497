#!/usr/bin/env python3
"""A stand-in for GNU time where /usr/bin/time is missing (the GPU host's image).

Supports what the benchmarks use:
    time_shim.py [-o FILE] -f FORMAT CMD...   FORMAT of %e %M %U %S (and text)
    time_shim.py -v CMD...                    the -v lines the benches read
Figures come from wait4() on the command, as GNU time takes them: wall
seconds, peak RSS in KiB, user and system CPU seconds (descendants the
command waited for included). Exit status: the command's.
"""
import os
import subprocess
import sys
import time


def main(argv):
    out_file, fmt, verbose = None, None, False
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "-o":
            out_file, i = argv[i + 1], i + 2
        elif argv[i] == "-f":
            fmt, i = argv[i + 1], i + 2
        elif argv[i] == "-v":
            verbose, i = True, i + 1
        else:
            sys.exit(f"time_shim: unsupported option {argv[i]}")
    cmd = argv[i:]
    if not cmd:
        sys.exit("usage: time_shim.py [-o FILE] (-f FORMAT | -v) CMD...")
    start = time.monotonic()
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if verbose:
        minutes, seconds = divmod(wall, 60)
        report = (f"\tCommand being timed: \"{' '.join(cmd)}\"\n"
                  f"\tUser time (seconds): {usage.ru_utime:.2f}\n"
                  f"\tSystem time (seconds): {usage.ru_stime:.2f}\n"
                  f"\tElapsed (wall clock) time (h:mm:ss or m:ss): {int(minutes)}:{seconds:05.2f}\n"
                  f"\tMaximum resident set size (kbytes): {usage.ru_maxrss}\n"
                  f"\tExit status: {code}\n")
    else:
        report = (fmt or "%e %M %U %S").replace("%e", f"{wall:.2f}").replace("%M", str(usage.ru_maxrss)).replace(
            "%U", f"{usage.ru_utime:.2f}").replace("%S", f"{usage.ru_stime:.2f}") + "\n"
    if out_file:
        with open(out_file, "w") as f:
            f.write(report)
    else:
        sys.stderr.write(report)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
