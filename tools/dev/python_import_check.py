#!/usr/bin/env python3
"""Fails on an import cycle between the modules of the Python package.

  tools/dev/python_import_check.py [REPO_ROOT]

Reads every relative import of python/streamscope/*.py, at module level or
inside a function (a deferred import still ties the two modules together),
and prints each cycle; exits 1 if there is one (CTest: python_import_test).
"""
import ast
import os
import sys

# The same cycle search as the C++ include check (Tarjan's strongly connected components).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layering_check import cycles  # noqa: E402


def imports_of(path, modules):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:  # from . import a, b
                found.update(a.name for a in node.names if a.name in modules)
    return found & modules


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    package = os.path.join(root, "python", "streamscope")
    modules = {n[:-3] for n in os.listdir(package) if n.endswith(".py")}
    graph = {m: sorted(imports_of(os.path.join(package, m + ".py"), modules) - {"__init__"}) for m in modules}
    found = cycles(graph)
    for c in found:
        print("import cycle: " + " <-> ".join(c))
    print(f"{len(modules)} modules, {sum(len(v) for v in graph.values())} imports, {len(found)} cycle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
