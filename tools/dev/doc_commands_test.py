#!/usr/bin/env python3
"""Runs every shell command the documentation shows, so the docs cannot
drift from the tool.

Every Markdown file of the repository (build folders and .git left out) is
read; every fenced block marked ```sh, ```bash, ```shell or ```console is
taken apart into commands (```console: the lines starting with "$ "; the
others: every line, a trailing backslash joining lines). Each document's
commands run in order, with bash, in a scratch folder of their own, where
`streamscope` is the binary under test (first on PATH, and as
build/bin/streamscope), tests/ is the repository's tests/ folder, and the
file names the docs use for "your trace" are copies of bundled traces
(FIXTURES below). A command passes when it exits 0.

Commands that need a GPU are not run: `streamscope run`, `compare --run`
and `workloads run` are checked against the command's --help instead (the
subcommand exists, every option named exists). Any other block that cannot
run here says so with a marker comment on the line before its fence,

    <!-- doc-test: skip: REASON -->

and is listed as skipped with that reason. `streamscope` lines in indented
code blocks run too, except synopses (`    streamscope report TRACE...
[--top N]`: placeholders in capitals, brackets), which get the --help
check.

Usage: doc_commands_test.py --bin BUILD/bin [--repo ROOT] [--list]
"""
import argparse
import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SHELL_LANGS = {"sh", "bash", "shell", "console"}
SKIP_MARKER = re.compile(r"<!--\s*doc-test:\s*skip:\s*(.*?)\s*-->")
SKIP_DIRS = {".git", "node_modules", "__pycache__", "third_party"}

# The names the docs give "your" files, and the bundled trace each stands for.
FIXTURES = {
    "trace.sqlite": "tests/data/overlapped.sqlite",
    "control.sqlite": "tests/data/sequential.sqlite",
    "variant.sqlite": "tests/data/overlapped.sqlite",
    "report1.sqlite": "tests/data/nsys/small-rtx3060-nsys2025.sqlite",
    "nsys-report.sqlite": "tests/data/nsys/small-rtx3060-nsys2025.sqlite",
    "mpi-run.sqlite": "tests/data/nsys/saxpy-mpi-cuda-rank0-a100.sqlite",
    "trace.json": "tests/data/torch/synthetic_two_streams.json",
}
GZIP_FIXTURES = {
    "trace.json.gz": "tests/data/torch/synthetic_two_streams.json",
    "trace.pt.trace.json.gz": "tests/data/torch/synthetic_two_streams.json",
}

# streamscope subcommands (and forms) that record on a GPU.
def needs_gpu(args):
    if not args:
        return False
    if args[0] == "run":
        return True
    if args[0] == "compare" and "--run" in args:
        return True
    return args[:2] == ["workloads", "run"]


def find_docs(repo):
    docs = []
    for root, dirs, files in os.walk(repo):
        rel = os.path.relpath(root, repo)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                         and not (rel == "." and d in ("out",)))
        for f in sorted(files):
            if f.endswith(".md"):
                docs.append(os.path.relpath(os.path.join(root, f), repo))
    return docs


def blocks(text):
    """Yields (line_number, language, lines, skip_reason) for fenced blocks,
    and ("indented", lines) synopsis lines of indented code blocks."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```\s*([\w+-]*)", lines[i])
        if m:
            lang = m.group(2).lower()
            start = i
            body = []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```", lines[i]):
                body.append(lines[i][len(m.group(1)):] if lines[i].startswith(m.group(1)) else lines[i])
                i += 1
            skip = None
            j = start - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0:
                sm = SKIP_MARKER.search(lines[j])
                if sm:
                    skip = sm.group(1)
            yield start + 1, lang, body, skip
        elif lines[i].startswith("    streamscope ") and (i == 0 or not lines[i - 1].strip() or
                                                         lines[i - 1].startswith("    ")):
            yield i + 1, "indented", [lines[i][4:]], None
        i += 1


def commands_of(lang, body):
    cmds = []
    if lang == "console":
        for line in body:
            if line.startswith("$ "):
                cmds.append(line[2:])
        return cmds
    current = ""
    for line in body:
        stripped = line.rstrip()
        if not current and (not stripped.strip() or stripped.lstrip().startswith("#")):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        cmds.append(current + stripped)
        current = ""
    if current:
        cmds.append(current)
    return cmds


def streamscope_args(command):
    """The arguments of a `streamscope ...` command (without comments), or None."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != "streamscope":
        return None
    return words[1:]


_help_cache = {}


def help_options(binary, sub):
    key = tuple(sub)
    if key not in _help_cache:
        r = subprocess.run([binary, *sub, "--help"], capture_output=True, text=True)
        if r.returncode != 0:
            _help_cache[key] = None
        else:
            names = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", r.stdout.split("Example:")[0]))
            _help_cache[key] = names
    return _help_cache[key]


def check_options(binary, args, synopsis=False):
    """--help check: the subcommand exists and names every option used.
    Returns an error string or None."""
    sub = [args[0]] if args else []
    if args[:1] == ["workloads"] and len(args) > 1 and not args[1].startswith("-"):
        sub = args[:2]
    options = help_options(binary, sub)
    if options is None:
        return "streamscope %s: no such command" % " ".join(sub)
    for word in args[len(sub):]:
        if word == "--":
            break  # the recorded program's own arguments
        if synopsis:
            word = word.strip("[]|()")
        m = re.match(r"^(--?[A-Za-z][\w-]*)", word)
        if m and m.group(1) not in options:
            return "streamscope %s has no option %s" % (" ".join(sub), m.group(1))
    return None


def is_synopsis(command):
    """`streamscope report TRACE... [--top N]`: placeholders, not a command."""
    return bool(re.search(r"\[|\.\.\.|\||\b[A-Z]{2,}[A-Z_]*\b", command.split("#")[0]))


def prepare_scratch(repo, bin_dir):
    scratch = tempfile.mkdtemp(prefix="streamscope-doc-test-")
    for entry in os.listdir(repo):  # the repository's files, read through links
        if entry not in FIXTURES and entry != ".git" and not entry.startswith("build"):
            os.symlink(os.path.join(repo, entry), os.path.join(scratch, entry))
    os.makedirs(os.path.join(scratch, "build"))
    os.symlink(os.path.abspath(bin_dir), os.path.join(scratch, "build", "bin"))
    for name, src in FIXTURES.items():
        shutil.copyfile(os.path.join(repo, src), os.path.join(scratch, name))
    for name, src in GZIP_FIXTURES.items():
        with open(os.path.join(repo, src), "rb") as f, gzip.open(os.path.join(scratch, name), "wb") as g:
            g.write(f.read())
    return scratch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="folder holding the streamscope binary")
    parser.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    parser.add_argument("--list", action="store_true", help="list the commands and what is done with each")
    args = parser.parse_args()
    repo = os.path.abspath(args.repo)
    binary = os.path.join(os.path.abspath(args.bin), "streamscope")
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(args.bin) + os.pathsep + env.get("PATH", "")
    env.pop("STREAMSCOPE_PROFILE", None)

    ran = checked = skipped = 0
    failures = []
    for doc in find_docs(repo):
        with open(os.path.join(repo, doc), encoding="utf-8") as f:
            text = f.read()
        scratch = None
        try:
            for line_no, lang, body, skip in blocks(text):
                if lang != "indented" and lang not in SHELL_LANGS:
                    continue
                for command in commands_of("sh" if lang == "indented" else lang, body):
                    where = "%s:%d" % (doc, line_no)
                    if skip is not None:
                        skipped += 1
                        print("SKIP  %s  %s  (%s)" % (where, command, skip))
                        continue
                    ss_args = streamscope_args(command)
                    synopsis = lang == "indented" and is_synopsis(command)
                    if synopsis or (ss_args is not None and needs_gpu(ss_args)):
                        error = check_options(binary, ss_args or [], synopsis=synopsis)
                        checked += 1
                        why = "synopsis" if synopsis else "records on a GPU"
                        print("%s %s  %s  (options checked against --help: %s)" %
                              ("FAIL " if error else "CHECK", where, command, why))
                        if error:
                            failures.append((where, command, error))
                        continue
                    if args.list:
                        print("RUN   %s  %s" % (where, command))
                        continue
                    if scratch is None:
                        scratch = prepare_scratch(repo, args.bin)
                    r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch, env=env,
                                       capture_output=True, text=True, timeout=300)
                    ran += 1
                    if r.returncode != 0:
                        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
                        failures.append((where, command, "exit %d: %s" % (r.returncode, " | ".join(tail))))
                        print("FAIL  %s  %s  (exit %d)" % (where, command, r.returncode))
                    else:
                        print("OK    %s  %s" % (where, command))
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
    print("\n%d commands run, %d checked against --help, %d skipped (marked), %d failed" %
          (ran, checked, skipped, len(failures)))
    for where, command, error in failures:
        print("FAILED %s: %s\n    %s" % (where, command, error))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
