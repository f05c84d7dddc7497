#!/usr/bin/env python3
"""Fails when a tracked text file speaks of something outside the product.

  tools/dev/repo_hygiene_check.py [REPO_ROOT]

Looks for: issue or session numbers, absolute paths of a development
machine (checkouts, home folders, scratch binaries and virtual
environments), references to design notes that live outside the
repository, GPU scripts named after an occasion (*_session.sh) and notes on
how a team works (TEAM_RULES). Prints every hit as FILE:LINE: WHAT and
exits 1 if there is any (CTest: repo_hygiene_test).
"""
import os
import re
import subprocess
import sys

RULES = [
    ("an issue or session number", re.compile(r"\b(?:issues?|sessions?)\s+#?\d+", re.I)),
    ("a machine's absolute path", re.compile(r"(?<![\w$}.])/(?:work|root|home)/")),
    ("a scratch path of a machine", re.compile(r"/tmp/[\w.-]*(?:venv|bin|clone|snapshot)\b")),
    ("a file outside the repository", re.compile(r"DESIGN\.md|\.\./shared\b|\bshared/CUPTI_NOTES")),
    ("a script named after an occasion", re.compile(r"\w_session\.sh\b")),
    ("notes on how a team works", re.compile(r"TEAM_RULES")),
]
SELF = "tools/dev/repo_hygiene_check.py"


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    hits = 0
    for rel in tracked_files(root):
        if rel == SELF:
            continue
        path = os.path.join(root, rel)
        if os.path.basename(rel).endswith("_session.sh"):
            print(f"{rel}: {RULES[4][0]}")
            hits += 1
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue  # a deleted file not yet committed
        if b"\0" in data:
            continue  # binary
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            for what, pattern in RULES:
                if pattern.search(line):
                    print(f"{rel}:{number}: {what}: {line.strip()[:120]}")
                    hits += 1
    print(f"{hits} hit(s)")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
