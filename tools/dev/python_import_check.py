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


def cycles(graph):
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    package = os.path.join(root, "python", "streamscope")
    modules = {n[:-3] for n in os.listdir(package) if n.endswith(".py")}
    graph = {m: imports_of(os.path.join(package, m + ".py"), modules) - {"__init__"} for m in modules}
    found = cycles(graph)
    for c in found:
        print("import cycle: " + " <-> ".join(c))
    print(f"{len(modules)} modules, {sum(len(v) for v in graph.values())} imports, {len(found)} cycle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
