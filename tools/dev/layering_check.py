#!/usr/bin/env python3
"""Counts the analyzer's upward include edges and include cycles from the
real #include lines, against the layer order in analyzer/layers.txt.

  tools/dev/layering_check.py [REPO_ROOT]

Prints every upward edge and every cycle, then the counts; exits 1 unless
both are 0 (CTest: layering_test). An include of a folder that no layer
holds is an error too, so that a new folder gets a place in the order, and
so is an include of the repository's code outside the analyzer (collector/,
workloads/, schema/, ...) that no `external LAYER HEADER` line of
layers.txt declares for the including file's layer.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"analyzer/([^"/]+)/([^"]+)"', re.M)
# The repository's own code outside the analyzer (schema/ is open to all).
OUTSIDE = re.compile(r'^\s*#\s*include\s+"((?:collector|workloads|common|tests|bench|tools)/[^"]+)"', re.M)


def read_layers(root):
    """folder -> (index, layer name), and the declared outside includes {(layer, header)}."""
    order, external = {}, set()
    with open(os.path.join(root, "analyzer", "layers.txt")) as f:
        index = 0
        for line in f:
            fields = line.split()
            if not fields or line.startswith("#"):
                continue
            if fields[0] == "external":
                external.update((fields[1], header) for header in fields[2:])
                continue
            for folder in fields[1:]:
                order[folder] = (index, fields[0])
            index += 1
    return order, external


def analyzer_files(root):
    base = os.path.join(root, "analyzer")
    for folder in sorted(os.listdir(base)):
        path = os.path.join(base, folder)
        if not os.path.isdir(path):
            continue
        for dirpath, _, names in os.walk(path):
            for name in sorted(names):
                if name.endswith((".h", ".cc")):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root)


def cycles(graph):
    """Strongly connected components with more than one node, or a self-loop (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
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
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    order, external = read_layers(root)
    upward, unplaced, undeclared = [], [], []
    file_graph, folder_graph = {}, {}
    for path in analyzer_files(root):
        folder = path.split(os.sep)[1]
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        file_graph.setdefault(path, set())
        for header in OUTSIDE.findall(text):
            if folder in order and (order[folder][1], header) not in external:
                undeclared.append((path, header, order[folder][1]))
        for target_folder, rest in INCLUDE.findall(text):
            target = os.path.join("analyzer", target_folder, rest)
            file_graph[path].add(target)
            if target_folder != folder:
                folder_graph.setdefault(folder, set()).add(target_folder)
            for f_ in (folder, target_folder):
                if f_ not in order and (path, f_) not in unplaced:
                    unplaced.append((path, f_))
            if folder in order and target_folder in order and order[target_folder][0] > order[folder][0]:
                upward.append((path, target, order[folder][1], order[target_folder][1]))
    file_cycles = cycles(file_graph)
    folder_cycles = cycles(folder_graph)
    for path, target, low, high in upward:
        print(f"upward: {path} ({low}) includes {target} ({high})")
    for c in file_cycles:
        print("file include cycle: " + " -> ".join(c))
    for c in folder_cycles:
        print("folder include cycle: " + " -> ".join(c))
    for path, header, layer in undeclared:
        print(f"undeclared: {path} includes {header}: add 'external {layer} {header}' to analyzer/layers.txt")
    for path, folder in unplaced:
        print(f"no layer holds analyzer/{folder}/ (in {path}): add it to analyzer/layers.txt")
    print(f"{len(upward)} upward include edges, {len(file_cycles) + len(folder_cycles)} include cycles, "
          f"{len(unplaced)} unplaced folders, {len(undeclared)} undeclared outside includes "
          f"({len(file_graph)} files, {len(order)} layers' folders)")
    return 0 if not upward and not file_cycles and not folder_cycles and not unplaced and not undeclared else 1


if __name__ == "__main__":
    sys.exit(main())
