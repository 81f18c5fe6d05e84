#!/usr/bin/env python3
"""docs/results stays under 5 MB (docs/results/README.md: raw files in each folder's raw.tar.xz, packed by
.ci/pack-results), and no raw run lies beside the archive uncompressed or gzipped."""
import os
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RESULTS = os.path.join(ROOT, "docs", "results")
LIMIT = 5_000_000  # bytes


def size(folder):
    return sum(os.path.getsize(os.path.join(base, n)) for base, _, names in os.walk(folder) for n in names)


def loose_runs(folder):
    """Raw files left outside an archive: runs (.json, .json.gz) and logs (.log)."""
    return sorted(os.path.relpath(os.path.join(base, n), folder) for base, _, names in os.walk(folder) for n in names
                  if n.endswith((".json", ".json.gz", ".log")))


class ResultsSize(unittest.TestCase):
    def test_docs_results_is_under_its_limit(self):
        self.assertLess(size(RESULTS), LIMIT, f"docs/results is {size(RESULTS) / 1e6:.2f} MB: pack the new folders' raw "
                                              "files (.ci/pack-results docs/results/FOLDER)")

    def test_every_raw_file_is_in_an_archive(self):
        self.assertEqual(loose_runs(RESULTS), [])

    def test_an_oversized_or_loose_folder_is_found(self):
        # The checks themselves can fail: a folder over the limit, with a run left beside its archive.
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "run.json"), "wb") as f:
                f.write(b"x" * 4096)
            self.assertGreater(size(tmp), 4000)
            self.assertEqual(loose_runs(tmp), ["run.json"])


if __name__ == "__main__":
    unittest.main()
