#!/usr/bin/env python3
"""Ctrl-C during a run (no GPU needed: PointerChaseCPU runs on the host): the row in flight ends, the
rest are skipped as "interrupted", the JSON is complete and valid with every finished row, and
gpubench exits non-zero (128 + SIGINT). analysis/resume.py's filter then runs exactly the rest, and the two
files read as one run with every row run."""
import json
import os
import pty
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

GPUBENCH = sys.argv.pop(1) if len(sys.argv) > 1 else "gpubench"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
RESUME = os.path.join(ROOT, "analysis", "resume.py")
sys.path.insert(0, ROOT)
from analysis.model import report as report_model  # noqa: E402
from analysis.model import row as row_model  # noqa: E402


def read_console(console, finished_row):
    """Reads the run's console to its end (so that it never blocks on a full terminal), setting `finished_row` at the
    first row printed."""
    pending = b""
    while True:
        try:
            chunk = os.read(console, 4096)
        except OSError:  # the run ended: the terminal is gone
            break
        if not chunk:
            break
        pending += chunk
        if b"ns_per_load=" in pending:  # the counters end a finished row's line
            finished_row.set()
    os.close(console)


class Interrupt(unittest.TestCase):
    def test_sigint_leaves_valid_json_with_finished_and_interrupted_rows(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run.json")
            # The console on a terminal prints each row as it finishes: the first one finished is the moment.
            console, terminal = pty.openpty()
            process = subprocess.Popen(
                [GPUBENCH, "--gpubench_preset=full", "--benchmark_filter=^PointerChaseCPU/", "--gpubench_card=none",
                 f"--benchmark_out={out}", "--benchmark_min_time=0.3"],
                stdout=terminal, stderr=subprocess.PIPE, text=True)
            os.close(terminal)
            finished_row = threading.Event()
            threading.Thread(target=read_console, args=(console, finished_row), daemon=True).start()
            self.assertTrue(finished_row.wait(timeout=120), "no row finished in 120 s")
            # Twice at once, as `timeout` does (to the process and its group): still one clean stop.
            process.send_signal(signal.SIGINT)
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
            self.assertEqual(process.returncode, 128 + signal.SIGINT, stderr)
            self.assertIn("interrupted", stderr)
            with open(out) as f:
                report = json.load(f)  # valid JSON, closed by Google Benchmark
            rows = report["benchmarks"]
            self.assertEqual(len(rows), 17, "every selected row is in the report")
            finished = [r for r in rows if not r.get("error_occurred")]
            interrupted = [r for r in rows if r.get("error_message") == "interrupted"]
            self.assertGreaterEqual(len(finished), 1, stderr)
            self.assertGreaterEqual(len(interrupted), 1, stderr)
            self.assertEqual(len(finished) + len(interrupted), len(rows))
            for row in finished:
                self.assertGreater(row["ns_per_load"], 0)
            self.resume(tmp, out, [r["name"] for r in interrupted])

    def resume(self, tmp, first, interrupted):
        resume = subprocess.run([sys.executable, RESUME, first], capture_output=True, text=True, timeout=60)
        self.assertEqual(resume.returncode, 0, resume.stderr)
        row_filter = resume.stdout.strip()
        listed = subprocess.run([GPUBENCH, "--gpubench_preset=full", f"--benchmark_filter={row_filter}",
                                 "--benchmark_list_tests"], capture_output=True, text=True, timeout=60)
        # The listing names host rows as this run's effort does (/min_time:0.100 under the stopping rule).
        same = lambda names: [row_model.EFFORT_SUFFIX.sub("", n) for n in names]
        self.assertEqual(same(listed.stdout.split()), same(interrupted), "the filter selects exactly the rows not run")
        second = os.path.join(tmp, "second.json")
        done = subprocess.run([GPUBENCH, "--gpubench_preset=full", f"--benchmark_filter={row_filter}",
                               "--gpubench_card=none", f"--benchmark_out={second}", "--benchmark_min_time=0.01"],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        merged = report_model.load([first, second])
        self.assertEqual(len(merged.all_rows), 17)
        self.assertEqual(merged.failed(), [], "every row ran in one file or the other")
        again = subprocess.run([sys.executable, RESUME, first, second], capture_output=True, text=True, timeout=60)
        self.assertEqual(again.returncode, 1)
        self.assertIn("nothing to resume", again.stderr)


if __name__ == "__main__":
    unittest.main()
