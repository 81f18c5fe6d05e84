#!/usr/bin/env python3
"""The contract between the analysis and the binary: every row, argument and counter an analysis module reads
by a literal string exists in the full, burn or memtest preset's listing (`gpubench --gpubench_preset=full
--benchmark_list_tests`) and the counter catalog (`--gpubench_list_counters=json`). A typo fails here instead of
reading "not measured". Rows that only older runs carry are named by their module's LEGACY (a family, or a
registered name)."""
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, ROOT)
from analysis.model import report as report_model  # noqa: E402
from analysis.comparing.comparison import NODE_ONLY_ROWS  # noqa: E402

GPUBENCH = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else shutil.which("gpubench")
# Fields Google Benchmark writes into every row, and the report model's own attributes.
ROW_FIELDS = {"name", "run_name", "run_type", "real_time", "cpu_time", "time_unit", "iterations", "label",
              "error_occurred", "error_message", "skipped", "skip_message", "repetition_index", "args"}
ROW_NAME = re.compile(r"[A-Z][A-Za-z]*(/[A-Za-z0-9_]+)+")  # "Family/case/...", no arguments or prose
ROW_VARIABLES = {"row", "r", "best", "sweep", "zero", "random_row", "fastest", "slowest"}


def listing():
    """{registered name: set of argument names} of the full preset and the long presets' own rows (burn, memtest),
    and the catalog's counter names."""
    out = "".join(subprocess.run([GPUBENCH, f"--gpubench_preset={preset}", "--benchmark_list_tests"],
                                 capture_output=True, text=True, check=True).stdout
                  for preset in ("full", "burn", "memtest"))
    registered = {}
    for line in out.splitlines():
        name, args, _ = report_model.parse_name(line.strip())
        registered.setdefault(name, set()).update(args)
    registered.update(node_only_rows())
    catalog = json.loads(subprocess.run([GPUBENCH, "--gpubench_list_counters=json"], capture_output=True, text=True,
                                        check=True).stdout)
    return registered, [entry["name"] for entry in catalog]


# Rows only a node run registers (registry.h's running_as_node: its parent and children; compare's list): a listing of
# one process has none, so they are read from their registration in the source, with their arguments.
NODE_ONLY = NODE_ONLY_ROWS


def node_only_rows():
    found = {}
    for folder, _, files in os.walk(os.path.join(ROOT, "bench")):
        for file in files:
            with open(os.path.join(folder, file), errors="replace") as f:
                text = f.read()
            for name in NODE_ONLY:
                for args in re.findall(r'family\.gpu\("' + re.escape(name) + r'", \{([^}]*)\}', text):
                    found[name] = set(re.findall(r'"([A-Za-z_]+)"', args))
    return found


def described(counter, catalog):
    for name in catalog:
        if name == counter or ("*" in name and counter.startswith(name.split("*")[0])
                               and counter.endswith(name.split("*")[1])):
            return True
    return False


def legacy_families(paths):
    found = set()
    for path in paths:
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "LEGACY" for t in node.targets):
                found |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return found


def text_of(node):
    """A string constant, or the constant head of an f-string (None: no literal to check)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return node.values[0].value, False
    return None, False


def problems(paths, registered, catalog):
    """["file:line: what"] for every literal row, argument or counter no row or catalog entry has."""
    legacy = legacy_families(paths)
    found = []

    def is_legacy(name):
        return any(name == old or name.startswith(old + "/") for old in legacy)

    def known_row(name, whole):
        if is_legacy(name):
            return True
        if whole:
            return any(r == name or r.startswith(name + "/") for r in registered)
        return any(r.startswith(name) for r in registered)

    families = {name.split("/")[0] for name in registered}
    for path in paths:
        where = os.path.relpath(path, ROOT)
        with open(path) as f:
            tree = ast.parse(f.read())
        f_string_parts = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
        prefixes = {id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith" for arg in node.args}
        for node in ast.walk(tree):
            # Any other literal shaped as a row name of a known family (a table of rows a card reads): it exists.
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in f_string_parts \
                    and ROW_NAME.fullmatch(node.value) and node.value.split("/")[0] in families \
                    and not known_row(node.value, id(node) not in prefixes):
                found.append(f"{where}:{node.lineno}: no row registered as {node.value!r}")
            # physics: one(rows, "Family/case", **args) and cases(rows, ...) name rows and their arguments
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("one", "cases") \
                    and len(node.args) > 1:
                name, whole = text_of(node.args[1])
                if name and whole and not is_legacy(name):
                    if name not in registered:
                        found.append(f"{where}:{node.lineno}: no row registered as {name!r}")
                    else:
                        for keyword in node.keywords:
                            if keyword.arg and keyword.arg not in registered[name]:
                                found.append(f"{where}:{node.lineno}: rows {name!r} have no argument {keyword.arg!r}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                method = node.func.attr
                if method in ("rows", "failed", "matches") and node.args:
                    name, whole = text_of(node.args[0])
                    if name and not known_row(name, whole):
                        found.append(f"{where}:{node.lineno}: no row registered as {name!r}")
                    if method == "rows" and len(node.args) > 1:
                        counter, constant = text_of(node.args[1])
                        if counter and constant and not described(counter, catalog):
                            found.append(f"{where}:{node.lineno}: no counter {counter!r} in the catalog")
                    if method == "rows" and name and not is_legacy(name):
                        arg_names = set().union(*[a for r, a in registered.items() if r == name or (
                            r.startswith(name + "/") if whole else r.startswith(name))] or [set()])
                        for keyword in node.keywords:
                            if keyword.arg and keyword.arg not in arg_names:
                                found.append(f"{where}:{node.lineno}: rows {name!r} have no argument {keyword.arg!r}")
                if method == "value" and node.args:
                    counter, whole = text_of(node.args[0])
                    if counter and whole and not described(counter, catalog):
                        found.append(f"{where}:{node.lineno}: no counter {counter!r} in the catalog")
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ROW_VARIABLES:
                key, whole = text_of(node.slice)
                if key and whole and key not in ROW_FIELDS and not described(key, catalog):
                    found.append(f"{where}:{node.lineno}: {node.value.id}[{key!r}]: no counter or row field of "
                                 "that name")
    return found


MODULES = sorted(glob.glob(os.path.join(ROOT, "analysis", "cards", "families", "*.py")) +
                 [os.path.join(ROOT, "analysis", name) for name in ("model/levels.py", "chase_summary.py",
                                                                   "cards/plots.py", "normalize_report.py",
                                                                   "cards/physics.py")])


@unittest.skipIf(GPUBENCH is None, "needs the gpubench binary (it lists the rows and the catalog without a GPU)")
class Contract(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.registered, cls.catalog = listing()

    def test_every_literal_the_analysis_reads_exists(self):
        self.assertEqual(problems(MODULES, self.registered, self.catalog), [])

    def planted(self, module, right, typos):
        """Each (typo, expected) planted in place of `right` in analysis/cards/families/<module>: the contract says so."""
        with open(os.path.join(ROOT, "analysis", "cards", "families", module)) as f:
            text = f.read()
        self.assertIn(right, text)
        with tempfile.TemporaryDirectory() as tmp:
            for typo, expected in typos:
                path = os.path.join(tmp, module)
                with open(path, "w") as f:
                    f.write(text.replace(right, typo))
                found = problems([path], self.registered, self.catalog)
                self.assertTrue(any(expected in line for line in found), found)

    def test_a_planted_typo_fails(self):
        self.planted("divergence.py", '"Divergence/Paths", "slowdown"',
                     (('"Divergence/Paths", "slowdwn"', "no counter 'slowdwn'"),
                      ('"Divergence/Pahts", "slowdown"', "no row registered as 'Divergence/Pahts'")))

    def test_a_planted_typo_in_a_table_of_rows_fails(self):
        self.planted("atomics.py", '"Atomics/global/red/gpu", 32',
                     (('"Atomics/global/red/gpus", 32', "no row registered as 'Atomics/global/red/gpus'"),))


if __name__ == "__main__":
    unittest.main()
