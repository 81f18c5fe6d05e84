#!/usr/bin/env python3
"""compare.py on synthetic runs and on committed device runs (no GPU): a 10% counter change is found
and thresholded, identical runs exit 0, runs from different GPUs are refused, missing counters and
benchmarks are listed, not dropped."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "..", "analysis", "compare.py")
FIXTURES = os.path.join(HERE, "..", "fixtures")
# What a run's own counter catalog says of the counters these tests use (gpubench writes it into the report).
CATALOG = [{"name": "l2_read_bytes", "unit": "bytes", "kind": "fixed", "meaning": "", "source": "CUPTI"},
           {"name": "inst_executed", "unit": "warp instructions", "kind": "fixed", "meaning": "", "source": "CUPTI"},
           {"name": "cycles", "unit": "cycles", "kind": "measured", "meaning": "", "source": "harness"}]


def row(name, time=1000.0, repetition=0, **counters):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetition_index": repetition,
            "iterations": 10, "real_time": time, "cpu_time": time, "time_unit": "ns", **counters}


def report(rows, gpu="NVIDIA H100 80GB HBM3"):
    return {"gpubench": {"schema": 1, "counters": CATALOG},
            "context": {"gpu_name": gpu, "gpu_sm_clock_mhz_measured": "1980"}, "benchmarks": rows}


class Compare(unittest.TestCase):
    def run_compare(self, before, after, *args):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for index, content in enumerate((before, after)):
                path = os.path.join(tmp, f"run{index}.json")
                with open(path, "w") as f:
                    json.dump(content, f)
                paths.append(path)
            return subprocess.run([sys.executable, COMPARE, *paths, *args], capture_output=True, text=True)

    def test_a_ten_percent_counter_change_at_equal_time_is_found_and_thresholded(self):
        before = report([row("Copy/MiB:64/manual_time", l2_read_bytes=1000.0, cycles=500.0)])
        after = report([row("Copy/MiB:64/manual_time", l2_read_bytes=1100.0, cycles=500.0)])
        done = self.run_compare(before, after, "--threshold", "5")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        line = next(l for l in done.stdout.splitlines() if "l2_read_bytes" in l)
        self.assertIn("+10.00%", line)
        self.assertIn("exact counter changed", line)
        self.assertIn("over 5%", line)
        self.assertEqual(self.run_compare(before, after, "--threshold", "15").returncode, 0)
        self.assertEqual(self.run_compare(before, after, "--threshold", "5", "--counters", "cycles").returncode, 0)

    def test_identical_runs_exit_zero(self):
        same = report([row("A/manual_time", cycles=10.0, inst_executed=5.0), row("B/manual_time", cycles=3.0)])
        done = self.run_compare(same, same, "--threshold", "0.1")
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertIn("0 flagged", done.stdout)

    def test_a_failed_or_missing_row_fails_the_threshold(self):
        before = report([row("A/manual_time", cycles=1.0), row("B/manual_time", cycles=1.0)])
        failed = dict(row("B/manual_time"), error_occurred=True, error_message="interrupted")
        after = report([row("A/manual_time", cycles=1.0), failed])
        done = self.run_compare(before, after, "--threshold", "5")
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("failed in AFTER (1): B/manual_time: interrupted", done.stdout)
        self.assertIn("1 benchmark(s) failed or missing on one side", done.stdout)
        gone = self.run_compare(before, report([row("A/manual_time", cycles=1.0)]), "--threshold", "5")
        self.assertEqual(gone.returncode, 1, gone.stdout)
        self.assertIn("only in BEFORE (1): B/manual_time", gone.stdout)
        self.assertEqual(self.run_compare(before, after).returncode, 0)  # without a threshold: a report, not a gate

    def test_fixed_counters_come_from_the_runs_catalog(self):
        plain = report([row("A/manual_time", l2_read_bytes=1000.0)])
        plain.pop("gpubench")
        moved = report([row("A/manual_time", l2_read_bytes=1100.0)])
        moved.pop("gpubench")
        done = self.run_compare(plain, moved)
        self.assertNotIn("exact counter changed", done.stdout)
        self.assertIn("neither run carries gpubench's counter table", done.stdout)

    def test_runs_from_different_gpus_are_refused_unless_allowed(self):
        a = report([row("A/manual_time")], gpu="NVIDIA H100 80GB HBM3")
        b = report([row("A/manual_time")], gpu="NVIDIA H200")
        refused = self.run_compare(a, b)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("different GPUs", refused.stderr)
        self.assertEqual(self.run_compare(a, b, "--allow-different-devices").returncode, 0)

    def test_missing_counters_and_benchmarks_are_listed(self):
        before = report([row("A/manual_time", cycles=1.0, l2_read_bytes=5.0), row("Gone/manual_time")])
        after = report([row("A/manual_time", cycles=1.0), row("New/manual_time")])
        done = self.run_compare(before, after)
        self.assertEqual(done.returncode, 0, done.stderr)  # no threshold: listed, not a failure
        self.assertNotIn("l2_read_bytes", done.stdout.split("only in")[0])  # in one run only: not compared
        self.assertIn("only in BEFORE (1): Gone/manual_time", done.stdout)
        self.assertIn("only in AFTER (1): New/manual_time", done.stdout)

    def test_repetitions_get_a_significance_test_or_say_why_not(self):
        before = report([row("A/manual_time", time=100.0 + i, repetition=i) for i in range(5)])
        after = report([row("A/manual_time", time=200.0 + i, repetition=i) for i in range(5)])
        for rows in (before["benchmarks"], after["benchmarks"]):
            for r in rows:
                r["inst_executed"] = 7.0  # a counter profiled once per case: the same in every repetition
        done = self.run_compare(before, after, "--format", "md")
        self.assertIn("not resampled", next(l for l in done.stdout.splitlines() if "inst_executed" in l))
        line = next(l for l in done.stdout.splitlines() if "time_ns" in l)
        if importlib.util.find_spec("scipy"):
            self.assertIn("yes (p=", line)
        else:
            self.assertIn("no scipy", line)
        self.assertTrue(line.startswith("| A/manual_time | time_ns |"), line)

    def test_three_repetitions_are_too_few_for_the_test(self):
        before = report([row("A/manual_time", time=100.0 + i, repetition=i) for i in range(3)])
        after = report([row("A/manual_time", time=200.0 + i, repetition=i) for i in range(3)])
        line = next(l for l in self.run_compare(before, after).stdout.splitlines() if "time_ns" in l)
        self.assertIn("too few (3 < 4)", line)

    def test_committed_device_runs_before_and_after_the_shape_change(self):
        done = subprocess.run([sys.executable, COMPARE, os.path.join(FIXTURES, "h100-shape-before.json"),
                               os.path.join(FIXTURES, "h100-shape-after.json"),
                               "--filter", "^InstructionLatency/", "--counters", "^(cycles_per_op|inst_executed)$",
                               "--threshold", "1"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)  # latency chains: equal before and after
        self.assertIn("10 benchmarks", done.stdout)


if __name__ == "__main__":
    unittest.main()
