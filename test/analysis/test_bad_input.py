#!/usr/bin/env python3
"""Bad input to every analysis script (no GPU): a missing file, a folder, an empty or truncated JSON,
JSON that is not a gpubench report, a run without a GPU, an output in a missing folder and an invalid
--filter regex each end in one line on stderr and a non-zero exit, never a traceback or a card."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.join(HERE, "..", "..", "analysis")
FIXTURES = os.path.join(HERE, "..", "fixtures")
GOOD = os.path.join(FIXTURES, "h100-suite.json")
SCRIPTS = {  # script: arguments after the input
    "card.py": [],
    "chase_summary.py": [],
    "normalize_report.py": [],
    "model/levels.py": [],
    "cards/plots.py": [],
    "time_split.py": [],
    "resume.py": [],
}


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(ANALYSIS, script), *args], capture_output=True, text=True,
                          timeout=120)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def file(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def inputs(self):
        with open(GOOD) as f:
            good = f.read()
        return {
            "missing file": (os.path.join(self.tmp.name, "nothing.json"), "No such file"),
            "a folder": (self.tmp.name, "is a directory"),
            "empty file": (self.file("empty.json", ""), "empty file"),
            "truncated JSON": (self.file("cut.json", good[: len(good) // 2]), "not valid JSON"),
            "JSON that is not a report": (self.file("list.json", "[1, 2]"), "not a Google Benchmark report"),
            "another tool's report": (self.file("other.json", json.dumps({"context": {"host_name": "x"},
                                                                            "benchmarks": []})),
                                      "not gpubench's"),
        }

    def assert_one_line(self, done, expected, what):
        self.assertNotEqual(done.returncode, 0, f"{what}: exit 0\n{done.stdout}")
        self.assertNotIn("Traceback", done.stderr, what)
        lines = done.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, f"{what}: {done.stderr}")
        self.assertIn(expected, lines[0], what)

    def test_every_script_refuses_unreadable_input_in_one_line(self):
        for script, extra in SCRIPTS.items():
            for what, (path, expected) in self.inputs().items():
                with self.subTest(script=script, input=what):
                    self.assert_one_line(run(script, path, *extra), expected, f"{script} on {what}")

    def test_compare_refuses_unreadable_input_in_one_line(self):
        for what, (path, expected) in self.inputs().items():
            with self.subTest(input=what):
                self.assert_one_line(run("compare.py", GOOD, path), expected, f"compare.py on {what}")

    def test_a_run_without_a_gpu_gets_no_card(self):
        done = run("card.py", os.path.join(FIXTURES, "cpu-only.json"), "--out", os.path.join(self.tmp.name, "c"))
        self.assert_one_line(done, "measured no GPU", "card.py on a CPU-only run")
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "c.md")))

    def test_outputs_in_a_missing_folder_are_refused(self):
        missing = os.path.join(self.tmp.name, "no", "such", "card")
        self.assert_one_line(run("card.py", GOOD, "--out", missing), "does not exist", "card.py --out")
        self.assert_one_line(run("cards/plots.py", GOOD, "-o", missing + ".png"), "does not exist", "plots.py -o")

    def test_invalid_filter_regex(self):
        self.assert_one_line(run("compare.py", GOOD, GOOD, "--filter", "x("), "--filter: invalid regular expression",
                             "compare.py --filter")
        self.assert_one_line(run("card.py", GOOD, "--check", "--limits", GOOD), "reference ranges:",
                             "card.py --ranges of a run")

    def test_time_split_needs_rows_with_their_wall_time(self):
        self.assert_one_line(run("time_split.py", GOOD), "carry no wall time", "time_split.py on an old run")
        done = run("time_split.py", os.path.join(HERE, "..", "..", "docs", "results", "2026-11-25-verdicts", "raw.tar.xz", "runs",
                                                 "h100a-1.json"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("152.3 s of wall, 46.7 s of it the final timed launches", done.stdout)
        self.assertIn("| PointerChase | 58 | 32.0 |", done.stdout)

    def test_card_compare_refuses_what_is_not_a_card(self):
        self.assert_one_line(run("card.py", "--compare", GOOD, GOOD), "not a card", "card.py --compare on runs")

    def test_card_compare_reads_a_card_kept_in_an_archive_and_refuses_a_negative_tolerance(self):
        card = os.path.join(HERE, "..", "..", "docs", "results", "2026-11-22-h100-suite", "raw.tar.xz", "card.json")
        done = run("card.py", "--compare", card, card)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("| value |", done.stdout)
        self.assert_one_line(run("card.py", "--compare", card, card, "--tolerance", "-5"), "--tolerance -5.0: give",
                             "card.py --compare --tolerance -5")

    def test_compare_refuses_a_threshold_that_is_no_percentage(self):
        for bad in ("nan", "inf", "-1"):
            self.assert_one_line(run("compare.py", GOOD, GOOD, "--threshold", bad), "--threshold", f"--threshold {bad}")

    def test_history_of_an_unknown_board_or_a_mistyped_store_is_said(self):
        store = os.path.join(self.tmp.name, "history.sqlite")
        added = run("history.py", "add", GOOD, "--store", store)
        self.assertEqual(added.returncode, 0, added.stderr)
        for command in ("show", "drift", "export"):
            extra = ["--out", os.path.join(self.tmp.name, "x.csv")] if command == "export" else []
            self.assert_one_line(run("history.py", command, "GPU-nobody", "--store", store, *extra),
                                 "no run of board GPU-nobody", f"history.py {command} of an unknown board")
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "x.csv")))
        typo = os.path.join(self.tmp.name, "histroy.sqlite")
        self.assert_one_line(run("history.py", "boards", "--store", typo), "no such file", "a mistyped --store")
        self.assertFalse(os.path.exists(typo))

    def test_prometheus_refuses_a_run_given_as_a_card(self):
        out = os.path.join(self.tmp.name, "gpubench.prom")
        self.assert_one_line(run("prometheus.py", "--card", GOOD, "--node", "n1", "--out", out), "not a card",
                             "prometheus.py --card RUN.json")
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
