#!/usr/bin/env python3
"""Committed runs read through their folder's raw.tar.xz (analysis/model/archive.py): a member as the file, an
archive and a pattern through one as their runs, and what is missing or damaged said in one line."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
PACK = os.path.join(ROOT, ".ci", "pack-results")
CARD = os.path.join(ROOT, "analysis", "card.py")
FIXTURE = os.path.join(ROOT, "test", "fixtures", "h100-suite.json")
from analysis.model import archive  # noqa: E402


class Archive(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        """A results folder of two runs (one gzipped, one in runs/) and a README naming them, packed."""
        cls.tmp = tempfile.TemporaryDirectory()
        folder = os.path.join(cls.tmp.name, "2026-01-01-test")
        os.makedirs(os.path.join(folder, "runs"))
        with open(FIXTURE) as f:
            run = f.read()
        with open(os.path.join(folder, "runs", "a.json"), "w") as f:
            f.write(run)
        subprocess.run(["gzip", "-k", os.path.join(folder, "runs", "a.json")], check=True)
        os.rename(os.path.join(folder, "runs", "a.json"), os.path.join(folder, "b.json"))
        with open(os.path.join(folder, "README.md"), "w") as f:
            f.write("Runs: `runs/a.json.gz`, `b.json`; all: `runs/*.json.gz`.\n")
        cls.pack = subprocess.run([sys.executable, PACK, folder], capture_output=True, text=True)
        cls.folder, cls.written = folder, json.loads(run)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_folder_keeps_its_readme_and_one_archive(self):
        self.assertEqual(self.pack.returncode, 0, self.pack.stderr)
        self.assertEqual(sorted(os.listdir(self.folder)), ["README.md", "raw.tar.xz"])
        with open(os.path.join(self.folder, "README.md")) as f:
            self.assertEqual(f.read(), "Runs: `raw.tar.xz/runs/a.json`, `raw.tar.xz/b.json`; all: `raw.tar.xz/runs/*.json`.\n")

    def test_a_member_reads_as_the_file(self):
        member = os.path.join(self.folder, "raw.tar.xz", "runs", "a.json")
        self.assertEqual(json.loads(archive.read(member)), self.written)
        self.assertTrue(archive.exists(member))

    def test_an_archive_and_a_pattern_stand_for_their_runs(self):
        packed = os.path.join(self.folder, "raw.tar.xz")
        self.assertEqual([os.path.basename(p) for p in archive.runs(packed)], ["b.json", "a.json"])
        self.assertEqual(archive.runs(os.path.join(packed, "runs", "*.json")), [packed + "/runs/a.json"])
        self.assertEqual(archive.runs(FIXTURE), [FIXTURE])

    def test_a_missing_member_or_a_damaged_archive_is_one_line(self):
        done = subprocess.run([sys.executable, CARD, os.path.join(self.folder, "raw.tar.xz", "runs", "c.json")],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("no runs/c.json in", done.stderr)
        damaged = os.path.join(self.tmp.name, "damaged.tar.xz")
        with open(damaged, "wb") as f:
            f.write(b"not xz")
        done = subprocess.run([sys.executable, CARD, damaged + "/a.json"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("cannot read the archive", done.stderr)


if __name__ == "__main__":
    unittest.main()
