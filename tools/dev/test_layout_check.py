#!/usr/bin/env python3
"""Checks that the analyzer's tests mirror its source tree: every file under
tests/analyzer/ (but the top CMakeLists.txt) lies in a folder that also
exists under analyzer/ (tests/analyzer/importers/x_test.cc for
analyzer/importers/...).

  tools/dev/test_layout_check.py [REPO_ROOT]

Prints every misplaced file with the folders it may go to; exits 1 if any
(CTest: test_layout_test).
"""
import os
import subprocess
import sys


def tracked_and_new_files(root, folder):
    """The files git knows below folder (tracked, or new and not ignored); a plain walk outside a checkout."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "--", folder],
                             check=True, capture_output=True, text=True).stdout
        return [line for line in out.splitlines() if os.path.exists(os.path.join(root, line))]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            found += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
        return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    source_dirs = sorted(d for d in os.listdir(os.path.join(root, "analyzer"))
                         if os.path.isdir(os.path.join(root, "analyzer", d)))
    misplaced = []
    for path in sorted(tracked_and_new_files(root, "tests/analyzer")):
        folder = os.path.dirname(os.path.relpath(path, "tests/analyzer"))
        if folder == "" and os.path.basename(path) == "CMakeLists.txt":
            continue
        if folder == "" or not os.path.isdir(os.path.join(root, "analyzer", folder)):
            misplaced.append(path)
    for path in misplaced:
        print(f"{path}: not in a folder of analyzer/; move it (git mv) into tests/analyzer/<folder>/ "
              f"of what it tests, one of: {', '.join(source_dirs)}")
    print(f"{len(misplaced)} test file(s) outside the folders that mirror analyzer/")
    return 1 if misplaced else 0


if __name__ == "__main__":
    sys.exit(main())
