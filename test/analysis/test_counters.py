#!/usr/bin/env python3
"""The counter catalog (no GPU): docs/counters.md is what the binary generates, every counter the
experiments write is described, none twice, and a JSON report carries the catalog and each row's
arguments as data.

    test_counters.py GPUBENCH_BINARY
"""
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

GPUBENCH = sys.argv.pop(1) if len(sys.argv) > 1 else "gpubench"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
# Where a family writes a counter: state.counters["name"], and report_per(state, result, "unit", ...).
WRITTEN = re.compile(r'counters\["([A-Za-z0-9_]+)"\]')
PER_UNIT = re.compile(r'report_per\([^,]+,\s*[^,]+,\s*"([A-Za-z0-9_]+)"')


def gpubench(*flags):
    done = subprocess.run([GPUBENCH, *flags], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout


def catalog():
    return json.loads(gpubench("--gpubench_list_counters=json"))


def described(name, entries):
    return any(e["name"] == name or ("*" in e["name"] and fnmatch.fnmatchcase(name, e["name"])) for e in entries)


def written_counters(folder):
    """{counter: file} of every literal counter name the sources under `folder` write."""
    found = {}
    for base, _, files in os.walk(folder):
        for name in files:
            if name.endswith((".cu", ".cpp", ".h", ".cuh")):
                with open(os.path.join(base, name)) as f:
                    text = f.read()
                for counter in WRITTEN.findall(text):
                    found.setdefault(counter, os.path.join(base, name))
                for unit in PER_UNIT.findall(text):
                    for quantity in ("cycles", "ns"):
                        found.setdefault(f"{quantity}_per_{unit}", os.path.join(base, name))
    return found


class CounterCatalog(unittest.TestCase):
    def test_docs_counters_md_is_generated_from_the_catalog(self):
        with open(os.path.join(ROOT, "docs", "counters.md")) as f:
            self.assertEqual(f.read(), gpubench("--gpubench_list_counters=markdown"),
                             "docs/counters.md drifted: regenerate it with gpubench --gpubench_list_counters=markdown "
                             "> docs/counters.md")

    def test_every_counter_an_experiment_writes_is_described(self):
        entries = catalog()
        written = written_counters(os.path.join(ROOT, "bench"))
        self.assertGreater(len(written), 20)
        missing = sorted(f"{name} ({path})" for name, path in written.items() if not described(name, entries))
        self.assertEqual(missing, [], "counters written but not described: add them to the family's GPUBENCH_COUNTERS")

    def test_each_counter_is_described_once_with_unit_kind_and_meaning(self):
        entries = catalog()
        names = [e["name"] for e in entries]
        self.assertEqual(sorted({n for n in names if names.count(n) > 1}), [])
        for e in entries:
            self.assertIn(e["kind"], ("fixed", "measured"), e)
            self.assertTrue(e["unit"] and e["meaning"] and e["source"], e)

    def test_the_report_carries_the_catalog_and_each_rows_arguments(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cpu.json")
            subprocess.run([GPUBENCH, "--benchmark_filter=^PointerChaseCPU/bytes:16384/", "--gpubench_counters=none",
                            "--benchmark_min_time=0.01", f"--benchmark_out={out}"], capture_output=True, timeout=120)
            with open(out) as f:
                text = f.read()
        # Strict JSON, written as data: no NaN or Infinity (Google Benchmark's own writer has them), gpubench's
        # block first, then Google Benchmark's context and rows.
        report = json.loads(text, parse_constant=lambda token: self.fail(f"{token} in the report"))
        self.assertEqual(list(report), ["gpubench", "context", "benchmarks"])
        self.assertEqual(report["gpubench"]["counters"], catalog())
        row = report["benchmarks"][0]
        wall_s = row["gpubench"].pop("wall_s")  # what the case cost the run, setup included
        self.assertGreater(wall_s, 0.0)
        self.assertLess(wall_s, 120.0)
        self.assertEqual(row["gpubench"], {"registered": "PointerChaseCPU", "family": "PointerChaseCPU",
                                           "args": {"bytes": 16384}, "gpu": None,
                                           "results": {"ns_per_load": "lower"}})  # what the row measures
        self.assertEqual(report["gpubench"]["schema"], 2)
        self.assertTrue(all(described(k, catalog()) for k, v in row.items()
                            if isinstance(v, (int, float)) and k in ("ns_per_load", "bytes_per_second")))

    def test_every_counter_has_a_role_and_results_a_direction(self):
        for entry in catalog():
            self.assertIn(entry["role"], ("fixed", "result", "noise", "diagnostic"), entry)
            self.assertEqual("better" in entry, entry["role"] == "result", entry)
            if entry["kind"] == "fixed":
                self.assertEqual(entry["role"], "fixed", entry)
        roles = {e["name"]: e["role"] for e in catalog()}
        self.assertEqual(roles["cycles"], "diagnostic")  # a bandwidth kernel's block-0 span is no result
        self.assertEqual(roles["bytes_per_second"], "result")
        self.assertEqual(roles["time_spread"], "noise")

    def test_a_result_counted_in_clocks_is_never_read_at_equal_clock(self):
        # compare reads a time or a rate per second at equal SM clock; one already in clocks, so moved, would change
        # by the clocks' ratio (SmMap's median rate moved 4.7% between two runs of 2700.01 FLOP/clk/SM).
        sys.path.insert(0, ROOT)
        from analysis.model.row import per_clock
        in_clocks = re.compile(r"^(cycles|per clock|ratio|x)$|clk")
        per_second = re.compile(r"(^|/)s$|^ns$")
        for entry in catalog():
            if entry["role"] != "result":
                continue
            name = entry["name"].replace("*", "load")
            if in_clocks.search(entry["unit"]):
                self.assertTrue(per_clock(name), entry)
            if per_second.search(entry["unit"]):
                self.assertFalse(per_clock(name), entry)


if __name__ == "__main__":
    unittest.main()
