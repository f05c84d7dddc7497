#!/usr/bin/env python3
"""Checks that every analyzer and test source compiles on its own, as it does
with -DSTREAMSCOPE_UNITY_BUILD=OFF: in a unity batch a file that forgot an
include still compiles when an earlier file of its batch included the
header. Each file is compiled with -fsyntax-only (no code generation: about
2.5 s a file) from the compile commands of a build folder configured with
unity off.

  tools/dev/include_check.py [BUILD_DIR]   (default: build-includes; made if missing)
"""
import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def configure(build):
    cmd = ["cmake", "-S", REPO, "-B", build, "-G", "Ninja", "-DSTREAMSCOPE_UNITY_BUILD=OFF"]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("include_check: configuring %s failed" % build)
    # Generated headers the sources include (the Perfetto protobuf classes).
    subprocess.run(["cmake", "--build", build, "--target", "streamscope_perfetto_pb"], stdout=subprocess.DEVNULL)


def syntax_only(entry):
    args = shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    run = subprocess.run(out + ["-fsyntax-only"], cwd=entry["directory"], capture_output=True, text=True)
    return entry["file"], run.returncode, run.stderr


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build-includes"))
    configure(build)
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    roots = tuple(os.path.join(REPO, d) + os.sep for d in ("analyzer", "tests"))
    sources = [e for e in entries if e["file"].startswith(roots) and e["file"].endswith(".cc")]
    # One entry per file (a source that two targets compile is checked once).
    sources = list({e["file"]: e for e in sources}.values())
    if not sources:
        sys.exit("include_check: no analyzer or test sources in %s/compile_commands.json" % build)
    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for path, rc, err in pool.map(syntax_only, sources):
            if rc != 0:
                failed += 1
                print("%s does not compile on its own:\n%s" % (os.path.relpath(path, REPO), err))
    print("include_check: %d of %d analyzer and test sources compile on their own" %
          (len(sources) - failed, len(sources)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
