#!/usr/bin/env python3
"""analysis/ imports one way: each folder is a floor and a module imports only from its own floor or those below;
the graph of modules has no cycle; no module is over 300 lines; only the command lines and running/ start
processes (the judging never runs gpubench). `--graph` prints the graph and every module's line count."""
import ast
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ANALYSIS = os.path.join(ROOT, "analysis")
# Lowest first. The top floor ("") is the command lines at analysis/'s top and tables/, the limit and noise makers.
FLOORS = ("model", "cards", "comparing", "verdict", "running", "store", "", "tables")
MOST_LINES = 300
RUNS_PROCESSES = ("running", "", "tables")


def modules(root=ANALYSIS):
    """{dotted name: path} of every module of the package."""
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
                found[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return found


def imports(path, known):
    """The package's modules `path` imports (anywhere in it: a lazy import is an arrow too), and whether it
    imports subprocess."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found, spawns = set(), False
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            spawns |= name.split(".")[0] == "subprocess"
            if name in known:
                found.add(name)
    return found, spawns


def floor(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in FLOORS else ""


def graph(root=ANALYSIS):
    known = modules(root)
    edges, spawning = {}, set()
    for name, path in known.items():
        found, spawns = imports(path, known)
        # importing analysis.x.y names its package too: the arrow is to the module, not to the package's __init__
        edges[name] = {m for m in found if m != name and not any(o.startswith(m + ".") for o in found)}
        if spawns:
            spawning.add(name)
    return known, edges, spawning


def cycles(edges):
    """Modules on a cycle (a depth-first search's back edges)."""
    state, on_cycle = {}, []

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                on_cycle.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return on_cycle


def upward(edges):
    """Arrows from a floor to a higher one."""
    return [(a, b) for a, targets in edges.items() for b in targets if FLOORS.index(floor(b)) > FLOORS.index(floor(a))]


def line_count(path):
    with open(path) as f:
        return sum(1 for _ in f)


def too_long(known):
    return {name: n for name, path in known.items() if (n := line_count(path)) > MOST_LINES}


class Imports(unittest.TestCase):
    def test_the_modules_form_a_graph_without_cycles(self):
        _, edges, _ = graph()
        self.assertEqual(cycles(edges), [])

    def test_every_arrow_points_down_a_floor_or_across_one(self):
        _, edges, _ = graph()
        self.assertEqual(upward(edges), [])

    def test_no_module_is_over_300_lines(self):
        known, _, _ = graph()
        self.assertEqual(too_long(known), {})

    def test_only_the_command_lines_and_running_start_processes(self):
        _, _, spawning = graph()
        self.assertEqual(sorted(m for m in spawning if floor(m) not in RUNS_PROCESSES), [])

    def test_a_planted_cycle_and_an_upward_arrow_are_found(self):
        # The checks themselves can fail: a model module that imports the verdict closes a cycle through it.
        edges = {"analysis.model.report": {"analysis.verdict.judge"}, "analysis.verdict.judge": {"analysis.model.report"}}
        self.assertTrue(cycles(edges))
        self.assertEqual(upward(edges), [("analysis.model.report", "analysis.verdict.judge")])


def print_graph():
    known, edges, spawning = graph()
    for name in sorted(known, key=lambda m: (FLOORS.index(floor(m)), m)):
        lines = line_count(known[name])
        arrows = ", ".join(sorted(e.replace("analysis.", "") for e in edges[name])) or "-"
        print(f"{name.replace('analysis.', '') or 'analysis'} ({lines} lines){' [runs processes]' if name in spawning else ''}: {arrows}")


if __name__ == "__main__":
    if "--graph" in sys.argv:
        print_graph()
        sys.exit(0)
    unittest.main()
