"""The history store: each checked GPU's card values and verdict, kept by board (gpu_uuid), in SQLite (one file) or
PostgreSQL (a fleet's), and the drifts of each board's series (analysis/store/drift.py). history.py is its command
line; card.py --check and fleet.py --history add to it."""
import math
import os
import sqlite3
import sys
import time

from analysis.model import cli
from analysis.store.drift import GRID_UNITS, change
from analysis.verdict import judge, table

SCHEMA = 1
DEFAULT = "gpubench-history.sqlite"
TABLES = ["CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
          "CREATE TABLE IF NOT EXISTS runs (id {serial}, board TEXT NOT NULL, host TEXT, pci_bus_id TEXT, "
          "time TEXT NOT NULL, preset TEXT NOT NULL, source_version TEXT, driver TEXT, gpu_name TEXT, verdict TEXT, "
          "verdict_exit INTEGER, file TEXT, UNIQUE (board, host, time, preset))",
          "CREATE TABLE IF NOT EXISTS run_values (run_id INTEGER NOT NULL REFERENCES runs (id), key TEXT NOT NULL, "
          "label TEXT, value DOUBLE PRECISION, unit TEXT, better TEXT, precision DOUBLE PRECISION, "
          "PRIMARY KEY (run_id, key))"]


class StoreError(Exception):
    """Why the store cannot be used, in one line."""


class Store:
    def __init__(self, target):
        self.target = target
        self.postgres = target.startswith(("postgresql://", "postgres://"))
        try:
            if self.postgres:
                self.db = connect_postgres(target)
            else:
                self.db = open_sqlite(target)
            self.create()
        except (sqlite3.Error, OSError) as e:
            raise StoreError(f"history store {target}: {e}") from None
        except Exception as e:  # psycopg's errors, where it is installed
            if type(e).__module__.startswith("psycopg"):
                raise StoreError(f"history store {target}: {str(e).splitlines()[0]}") from None
            raise

    def transaction(self):
        """One transaction: psycopg's (its `with connection` would close it), sqlite3's connection."""
        return self.db.transaction() if self.postgres else self.db

    def sql(self, text):
        return text.replace("?", "%s") if self.postgres else text

    def create(self):
        serial = "SERIAL PRIMARY KEY" if self.postgres else "INTEGER PRIMARY KEY AUTOINCREMENT"
        with self.transaction():
            cursor = self.db.cursor()
            if self.postgres:  # CREATE TABLE IF NOT EXISTS races between writers starting at once
                cursor.execute("SELECT pg_advisory_xact_lock(4242)")
            for statement in TABLES:
                cursor.execute(statement.format(serial=serial))
            cursor.execute(self.sql("SELECT value FROM meta WHERE key = 'schema'"))
            found = cursor.fetchone()
            if found is None:
                cursor.execute(self.sql("INSERT INTO meta (key, value) VALUES ('schema', ?) ON CONFLICT DO NOTHING"),
                               (str(SCHEMA),))
            elif int(found[0]) > SCHEMA:
                raise StoreError(f"history store {self.target}: schema {found[0]}, newer than this gpubench's "
                                 f"{SCHEMA} (use the gpubench that wrote it)")

    def add(self, run, values):
        """Stores one GPU's run and its values; False when the store has it already."""
        keys = ["board", "host", "pci_bus_id", "time", "preset", "source_version", "driver", "gpu_name", "verdict",
                "verdict_exit", "file"]
        with self.transaction():
            cursor = self.db.cursor()
            cursor.execute(self.sql(f"INSERT INTO runs ({', '.join(keys)}) VALUES ({', '.join('?' * len(keys))}) "
                                    "ON CONFLICT DO NOTHING"), [run.get(k) for k in keys])
            if cursor.rowcount == 0:
                return False
            cursor.execute(self.sql("SELECT id FROM runs WHERE board = ? AND host = ? AND time = ? AND preset = ?"),
                           (run["board"], run["host"], run["time"], run["preset"]))
            run_id = cursor.fetchone()[0]
            cursor.executemany(self.sql("INSERT INTO run_values (run_id, key, label, value, unit, better, precision) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?)"),
                               [(run_id, v["key"], v.get("label"), v["value"], v.get("unit"), v.get("better"),
                                 v.get("precision")) for v in values])
        return True

    def rows(self, query, args=()):
        cursor = self.db.cursor()
        cursor.execute(self.sql(query), args)
        return cursor.fetchall()


def open_sqlite(target, wait_s=60):
    """A connection in WAL mode (readers never wait for a writer). Writers that open a new store at the same instant
    each turn their read into the write that sets the mode; SQLite then fails one of them at once, without its busy
    timeout (a deadlock otherwise), so that one opens again until wait_s has passed."""
    deadline = time.monotonic() + wait_s
    while True:
        db = sqlite3.connect(target, timeout=wait_s)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return db
        except sqlite3.OperationalError as e:
            db.close()
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def connect_postgres(url):
    try:
        import psycopg
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")  # Debian's python3-psycopg under another Python
        try:
            import psycopg
        except ImportError:
            raise StoreError("a PostgreSQL store needs psycopg (Debian: apt-get install python3-psycopg)") from None
    return psycopg.connect(url, connect_timeout=10, autocommit=True)  # each transaction() its own


def open_store(target=None):
    return Store(target or os.environ.get("GPUBENCH_HISTORY") or DEFAULT)


def keep(target, path, report, judged, say):
    """Adds a checked run to the history at `target`; a store that cannot be used is said in one line and changes
    nothing else (the check's verdict is the check's)."""
    try:
        store = open_store(target)
        added = sum(store.add(run, values) for run, values in records_of_cards(path, report, judged))
        say(f"history: {added} GPU run(s) added to {target}")
        for board in sorted({built.context.get("gpu_uuid") for built, _ in judged} - {None}):
            for line in drifts(store, board):
                say(f"history: drift: {board}: {line} (a warning: the verdict is the check's)")
    except StoreError as e:
        say(f"history: {e}; the verdict stands")
    except (sqlite3.Error, OSError) as e:
        say(f"history: history store {target}: {e}; the verdict stands")


def records(path, limits):
    """[(run, values)] of every GPU of a run: its card values (with their stated precision) and its verdict."""
    report = cli.load(path)
    return records_of_cards(path, report, [(built, status) for _, built, status, _ in
                                           judge.judge_all(report, limits, False)])


def records_of_cards(path, report, judged):
    """[(run, values)] of cards already judged ([(card, status)]): what card.py --check keeps."""
    out = []
    for built, status in judged:
        c = built.context
        board = c.get("gpu_uuid")
        if not board:
            continue
        run = {"board": board, "host": report.context.get("host_name") or "", "pci_bus_id": c.get("gpu_pci_bus_id"),
               "time": c.get("date") or report.context.get("date") or "", "preset": c.get("gpubench_preset", "quick"),
               "source_version": c.get("gpubench_source_version"), "driver": c.get("cuda_driver_version"),
               "gpu_name": c.get("gpu_name"), "verdict": table.NAME_OF.get(status), "verdict_exit": status,
               "file": os.path.abspath(path)}
        values = [v for v in built.values if isinstance(v.get("value"), (int, float)) and math.isfinite(v["value"])]
        out.append((run, values))
    return out


def series(store, board):
    """{(key, preset): [(run number, time, value, precision, label, unit, better)]} of a board, oldest first: a
    preset's own series (presets measure a value at different points: the quick preset's capacity edge is not the
    check's)."""
    found = {}
    runs = store.rows("SELECT id, time, preset FROM runs WHERE board = ? ORDER BY time, id", (board,))
    number = {run_id: i + 1 for i, (run_id, _, _) in enumerate(runs)}
    when = {run_id: (time, preset) for run_id, time, preset in runs}
    for run_id, key, label, value, unit, better, precision in store.rows(
            "SELECT v.run_id, v.key, v.label, v.value, v.unit, v.better, v.precision FROM run_values v "
            "JOIN runs r ON r.id = v.run_id WHERE r.board = ?", (board,)):
        time, preset = when[run_id]
        found.setdefault((key, preset), []).append((number[run_id], time, value, precision, label, unit, better))
    return {key: sorted(points) for key, points in found.items()}


def drifts(store, board):
    """["DRAM read -3.8% since 2026-11-20, a change at run 14 (2026-11-24)"] of one board."""
    out = []
    for (key, preset), points in sorted(series(store, board).items()):
        if points[0][5] in GRID_UNITS:
            continue
        found = change(points)
        if found:
            run, relative, _ = found
            at = next(p for p in points if p[0] == run)
            out.append(f"{points[0][4] or key} {relative:+.1%} since {points[0][1][:10]}, a change at run {run} "
                       f"({at[1][:19]}, {preset} preset)")
    return out
