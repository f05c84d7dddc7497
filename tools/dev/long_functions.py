#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (default 120 lines).

  tools/dev/long_functions.py [--limit N] [PATH...]   (default: analyzer collector)

A function is a definition at namespace level (inside namespaces only, not
classes), its length counted from the first line of its signature to its
closing brace by brace depth, with strings, characters and comments skipped. Prints LINES FILE:LINE NAME, longest
first, and marks a function kept whole on purpose: one whose definition is
preceded by a comment containing "kept whole".
"""
import argparse
import os
import re
import sys

NAME = re.compile(r"([~\w:]+)\s*\(")


def strip(line, state):
    """The line without strings, chars and comments; state carries /* */ across lines."""
    out, i = [], 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"], i = False, end + 2
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"], i = True, i + 2
            continue
        if c == "'" and i > 0 and line[i - 1].isalnum():  # a digit separator (5'000), not a char literal
            out.append(c)
            i += 1
            continue
        if c in "\"'":
            if c == '"' and i > 0 and line[i - 1] == "R":  # raw string: skip to )"
                end = line.find(')"', i)
                i = len(line) if end < 0 else end + 2
                continue
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(path):
    """(length, first line, name, kept whole) of every function defined at namespace level."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    state = {"block": False}
    stack = []  # "ns" for namespace braces, else (start line, head) of the outermost block
    statement_start = 0  # where the statement being read began
    for i, line in enumerate(lines):
        text = strip(line, state)
        if not stack or all(k == "ns" for k in stack):
            if not line.strip() or line.lstrip().startswith(("//", "#")):
                statement_start = i + 1
        for c in text:
            if c == "{":
                if all(k == "ns" for k in stack):
                    head = " ".join(l.strip() for l in lines[statement_start:i + 1])
                    if re.match(r"^(inline\s+)?namespace\b|^extern\s", head):
                        stack.append("ns")
                    else:
                        stack.append((statement_start, head))
                else:
                    stack.append("blk")
            elif c == "}" and stack:
                top = stack.pop()
                if isinstance(top, tuple) and all(k == "ns" for k in stack):
                    start, head = top
                    is_function = "(" in head and not re.match(r"^(template\s*<.*>\s*)?(class|struct|enum|union)\b", head) \
                        and "=" not in head.split("(")[0]
                    if is_function:
                        m = NAME.search(head)
                        kept = any("kept whole" in c.lower() for c in lines[max(0, start - 3):start])
                        yield (i - start + 1, start + 1, m.group(1) if m else head[:40], kept)
        if all(k == "ns" for k in stack) and text.rstrip().endswith((";", "}", "{")):
            statement_start = i + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=120)
    ap.add_argument("paths", nargs="*", default=["analyzer", "collector"])
    args = ap.parse_args()
    found = []
    for p in args.paths:
        for dirpath, _, names in os.walk(p) if os.path.isdir(p) else [(os.path.dirname(p), None, [os.path.basename(p)])]:
            for n in names:
                if n.endswith((".cc", ".cu", ".h")):
                    path = os.path.join(dirpath, n)
                    for length, line, name, kept in functions(path):
                        if length > args.limit:
                            found.append((length, path, line, name, kept))
    for length, path, line, name, kept in sorted(found, reverse=True):
        print(f"{length:5d} {path}:{line} {name}{'  (kept whole)' if kept else ''}")
    print(f"{len(found)} function(s) over {args.limit} lines, {sum(1 for f in found if f[4])} kept whole on purpose")
    return 0


if __name__ == "__main__":
    sys.exit(main())
