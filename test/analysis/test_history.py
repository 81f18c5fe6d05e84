#!/usr/bin/env python3
"""The history store and its drift (analysis/history.py) on committed runs of the stopping rule
(docs/results/2026-11-26-precision): identical code on one board names no drift; a planted 3% step is named within
four runs of it, a planted slide of 0.5% a run before it crosses the SKU's limit; writers at once store every run
once, in SQLite and in a real PostgreSQL server on loopback (skipped, with the reason, where Debian's postgresql or
python3-psycopg is not installed), also writers opening a new store at the same instant; a corrupt store, a store of a newer schema and one on a read-only path are one
line each and leave the check's verdict as it was."""
import glob
import json
import multiprocessing
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, ROOT)
from analysis.model import archive  # noqa: E402
from analysis.store import history_store as history  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "test", "validation"))
import history_planted  # noqa: E402

HISTORY = os.path.join(ROOT, "analysis", "history.py")
CARD = os.path.join(ROOT, "analysis", "card.py")
RUNS = os.path.join(ROOT, "docs", "results", "2026-11-26-precision", "raw.tar.xz", "runs")
# Six checks of one H100 board back to back (GPU-a6e13cdd), and two of its quick runs.
BOARD_RUNS = archive.runs(os.path.join(RUNS, "h100m-new-check-m-?.json"))
DRAM_READ = "bandwidth.stream_read.bytes_per_second"


def load(path):
    return json.loads(archive.read(path))


def series_of(tmp, count, scale=lambda n: 1.0):
    """`count` checks of the board (its six repeated), a day apart, the DRAM read of run n (from 1) scaled by
    scale(n): paths of the runs written."""
    return history_planted.planted([BOARD_RUNS[(n - 1) % len(BOARD_RUNS)] for n in range(1, count + 1)], tmp, scale)


def run_history(*args, env=None):
    return subprocess.run([sys.executable, HISTORY, *args], capture_output=True, text=True, timeout=300,
                          env=env or dict(os.environ))


class Drift(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="history-")
        self.store = os.path.join(self.tmp, "h.sqlite")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_identical_code_on_one_board_names_no_drift(self):
        quick = archive.runs(os.path.join(RUNS, "h100m-new-quick-m-?.json"))
        added = run_history("add", "--store", self.store, *BOARD_RUNS, *quick)
        self.assertEqual(added.returncode, 0, added.stderr)
        self.assertIn("8 GPU run(s) added", added.stderr)
        again = run_history("add", "--store", self.store, *BOARD_RUNS)
        self.assertIn("0 GPU run(s) added, 6 already there", again.stderr)
        done = run_history("drift", "--store", self.store, "--check")
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertEqual(done.stdout, "")

    def test_twelve_runs_without_a_change_name_no_drift(self):
        run_history("add", "--store", self.store, *series_of(self.tmp, 12))
        self.assertEqual(run_history("drift", "--store", self.store, "--check").stdout, "")

    def first_named(self, paths):
        """The number of runs after which a drift of the DRAM read is first named, and the line."""
        return history_planted.first_named(paths, self.tmp, limit_table.load(limit_table.RANGES))

    def test_a_planted_three_percent_step_is_named_within_four_runs(self):
        k = 7
        n, line = self.first_named(series_of(self.tmp, 14, lambda n: 0.97 if n >= k else 1.0))
        self.assertIsNotNone(n, "never named")
        self.assertGreaterEqual(n, k)
        self.assertLessEqual(n, k + 4, line)
        self.assertRegex(line, r"-3\.\d% since 2026-12-01, a change at run 7 ")

    def test_a_slow_slide_is_named_before_it_crosses_the_skus_limit(self):
        slide = lambda n: 1 - 0.005 * (n - 1)  # noqa: E731
        n, line = self.first_named(series_of(self.tmp, 16, slide))
        self.assertIsNotNone(n, "never named")
        limit = limit_table.load(limit_table.RANGES)["skus"]["h100-sxm5"]["ranges"][DRAM_READ]["low"]
        first = [r for r in load(BOARD_RUNS[0])["benchmarks"] if r["name"].startswith("Stream/read/")]
        value = max(r["bytes_per_second"] for r in first if "bytes_per_second" in r) * slide(n)
        self.assertGreater(value, limit, f"named at run {n} ({line}) only after the limit was crossed")


class Writers(unittest.TestCase):
    """Eight writers at once, each adding the board's runs: every run stored once."""

    def writers(self, store):
        procs = [subprocess.Popen([sys.executable, HISTORY, "add", "--store", store, *BOARD_RUNS],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(8)]
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        db = history.open_store(store)
        self.assertEqual(db.rows("SELECT COUNT(*) FROM runs")[0][0], len(BOARD_RUNS))
        per_run = db.rows("SELECT COUNT(*) FROM run_values GROUP BY run_id")
        self.assertEqual(len(per_run), len(BOARD_RUNS))
        self.assertEqual(len({count for (count,) in per_run}), 1, per_run)  # every run with all its values

    def test_sqlite(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.writers(os.path.join(tmp, "h.sqlite"))

    def test_postgresql_on_loopback(self):
        binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not binaries or shutil.which("runuser") is None:
            self.skipTest("PostgreSQL is not installed (Debian: apt-get install postgresql python3-psycopg)")
        try:
            history.connect_postgres  # noqa: B018
            __import__("importlib").import_module("psycopg")
        except ImportError:
            sys.path.append("/usr/lib/python3/dist-packages")
            try:
                __import__("importlib").import_module("psycopg")
            except ImportError:
                self.skipTest("python3-psycopg is not installed")
        bindir = os.path.dirname(binaries[-1])
        tmp = tempfile.mkdtemp(prefix="history-pg-")
        os.chmod(tmp, 0o777)
        run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        data = os.path.join(tmp, "data")
        try:
            made = subprocess.run(run_as + [os.path.join(bindir, "initdb"), "-D", data, "--auth=trust", "-U",
                                            "gpubench"], capture_output=True, text=True)
            self.assertEqual(made.returncode, 0, made.stderr)
            started = subprocess.run(run_as + [os.path.join(bindir, "pg_ctl"), "-D", data, "-w", "-l",
                                               os.path.join(tmp, "log"), "-o",
                                               f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1", "start"],
                                     capture_output=True, text=True)
            self.assertEqual(started.returncode, 0, started.stderr)
            self.writers(f"postgresql://gpubench@127.0.0.1:{port}/postgres")
        finally:
            subprocess.run(run_as + [os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "immediate", "stop"],
                           capture_output=True)
            shutil.rmtree(tmp, ignore_errors=True)


def open_at_the_barrier(path, barrier, failures):
    barrier.wait()
    try:
        history.open_store(path)
    except history.StoreError as e:
        failures.put(str(e))


class OpeningAtOnce(unittest.TestCase):
    """Eight writers opening a new SQLite store at the same instant (what a 64-core host did to Writers.test_sqlite):
    before the open tried again, about 4% of them failed at once with "database is locked"."""

    def test_every_writer_opens_a_new_store(self):
        context = multiprocessing.get_context("fork")
        failures = context.Queue()
        with tempfile.TemporaryDirectory() as tmp:
            for store in range(40):
                barrier = context.Barrier(8)
                path = os.path.join(tmp, f"h{store}.sqlite")
                writers = [context.Process(target=open_at_the_barrier, args=(path, barrier, failures))
                           for _ in range(8)]
                for w in writers:
                    w.start()
                for w in writers:
                    w.join(120)
                    self.assertEqual(w.exitcode, 0)
        found = []
        while not failures.empty():
            found.append(failures.get())
        self.assertEqual(found, [], f"{len(found)} of 320 opens failed")


class BadStores(unittest.TestCase):
    """A store that cannot be used is one line, exit 2, and the check's verdict with it is the check's."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="history-bad-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def one_line(self, store, expected):
        done = run_history("add", "--store", store, BOARD_RUNS[0])
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn(expected, done.stderr)
        checked = subprocess.run([sys.executable, CARD, BOARD_RUNS[0], "--check"], capture_output=True, text=True,
                                 env=dict(os.environ, GPUBENCH_HISTORY=store))
        self.assertEqual(checked.returncode, 0, checked.stderr)  # the verdict (normal) whatever the store is
        self.assertIn("history", checked.stderr)

    def test_a_corrupt_store(self):
        store = os.path.join(self.tmp, "h.sqlite")
        with open(store, "wb") as f:
            f.write(b"not a database, cut mid-write" * 100)
        self.one_line(store, "file is not a database")

    def test_a_store_of_a_newer_schema(self):
        store = os.path.join(self.tmp, "h.sqlite")
        history.open_store(store)
        db = sqlite3.connect(store)
        with db:
            db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
        db.close()
        self.one_line(store, "schema 99, newer than this gpubench's 1")

    def test_a_store_on_a_read_only_path(self):
        self.one_line("/proc/gpubench-history.sqlite", "unable to open database file")  # read-only even for root


if __name__ == "__main__":
    unittest.main()
