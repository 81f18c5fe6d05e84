#!/usr/bin/env python3
"""The installed tree works on its own: `cmake --install BUILD --prefix TMP`, then the installed card.py
builds and checks the card of a committed H100 run against the installed limits (it failed before: the limits
were not installed), the installed fleet.py reads it, and the installed recipe is there and finds the
installed binary."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.join(ROOT, "build")
RUN = os.path.join(ROOT, "docs", "results", "2026-11-25-verdicts", "raw.tar.xz", "runs", "h100a-1.json")


class InstalledTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.prefix = os.path.join(cls.tmp.name, "prefix")
        done = subprocess.run(["cmake", "--install", BUILD, "--prefix", cls.prefix], capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"cmake --install failed: {done.stderr[-2000:]}")
        cls.analysis = os.path.join(cls.prefix, "share", "gpubench", "analysis")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_installed_card_checks_a_run_against_the_installed_limits(self):
        self.assertTrue(os.path.isfile(os.path.join(self.analysis, "verdict", "reference_ranges.json")))
        out = os.path.join(self.tmp.name, "card")
        done = subprocess.run([sys.executable, os.path.join(self.analysis, "card.py"), RUN, "--out", out, "--check"],
                              capture_output=True, text=True, cwd=self.tmp.name)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertRegex(done.stderr, r"normal: 1\d\d values within the sm_90 \(Hopper: [^)]*\) and H100 SXM5 80GB HBM3 "
                                      r"limits")
        self.assertTrue(os.path.isfile(out + ".md"))

    def test_the_installed_fleet_report_reads_a_run(self):
        done = subprocess.run([sys.executable, os.path.join(self.analysis, "fleet.py"), RUN, "--check"],
                              capture_output=True, text=True, cwd=self.tmp.name)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("None flagged", done.stdout)

    def test_the_installed_recipe_is_there_and_finds_the_installed_binary(self):
        recipe = os.path.join(self.analysis, "fleet.sbatch")
        self.assertTrue(os.access(recipe, os.X_OK))
        self.assertTrue(os.access(os.path.join(self.analysis, "node_check.sh"), os.X_OK))
        self.assertTrue(os.access(os.path.join(self.prefix, "bin", "gpubench"), os.X_OK))
        self.assertEqual(subprocess.run(["bash", "-n", recipe]).returncode, 0)


if __name__ == "__main__":
    unittest.main()
