#!/usr/bin/env python3
"""Checks that docs/ARCHITECTURE.md names only files and functions that exist.

  tools/dev/architecture_doc_check.py [REPO_ROOT]

Every `code span` of the document that looks like a file (ends in .cc, .h,
.py, .md, .sql, .txt or .sh; `a.{h,cc}` names both) must exist, as a path
from the repository root or under one of its source folders (the document
names analyzer files from analyzer/; a bare file name, used in its folder's
row or paragraph, must exist in some source folder).
Every span that looks like a function or type (`Name`, `Name()`,
`Type::Member()`, `Name(args)`) must be defined or declared somewhere in
analyzer/, collector/ or schema/. Prints what is missing and exits 1 if
anything is (CTest: architecture_doc_test).
"""
import os
import re
import sys

SPAN = re.compile(r"`([^`\n]+)`")
FILE = re.compile(r"^[\w./{},-]+\.(?:cc|h|py|md|sql|txt|sh)$")
SYMBOL = re.compile(r"^((?:[A-Z]\w*::)*[A-Z]\w*)(?:\(.*\))?$")
SOURCE_DIRS = ("analyzer", "collector", "schema")
BASES = ("", "analyzer", "collector", "schema", "tools/dev")


def expand(name):
    m = re.search(r"\{([^}]*)\}", name)
    if not m:
        return [name]
    return [name[: m.start()] + alt + name[m.end():] for alt in m.group(1).split(",")]


def basenames(root):
    found = set()
    for d in SOURCE_DIRS:
        for _, _, names in os.walk(os.path.join(root, d)):
            found.update(names)
    return found


def source_text(root):
    chunks = []
    for d in SOURCE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in names:
                if n.endswith((".h", ".cc", ".cu")):
                    with open(os.path.join(dirpath, n), errors="replace") as f:
                        chunks.append(f.read())
    return "\n".join(chunks)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    doc = os.path.join(root, "docs", "ARCHITECTURE.md")
    with open(doc) as f:
        text = f.read()
    source = source_text(root)
    known_names = basenames(root)
    missing, files, symbols = [], 0, 0
    for span in sorted(set(SPAN.findall(text))):
        if FILE.match(span):
            for name in expand(span):
                files += 1
                if "/" not in name and name in known_names:
                    continue  # a file named inside its folder's row or paragraph
                if not any(os.path.exists(os.path.join(root, base, name)) for base in BASES):
                    missing.append(f"file {name}")
            continue
        m = SYMBOL.match(span)
        if not m or span.isupper():
            continue  # an option, a value or a constant's spelling, not a name of the code
        for part in m.group(1).split("::"):
            symbols += 1
            if not re.search(r"\b" + re.escape(part) + r"\b", source):
                missing.append(f"name {part} (in `{span}`)")
    for what in missing:
        print(f"docs/ARCHITECTURE.md names a {what} that does not exist")
    print(f"{files} file(s), {symbols} name(s) checked, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
