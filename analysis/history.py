#!/usr/bin/env python3
"""Each GPU against its own past: every verdict run's values kept by board (gpu_uuid), and drift named.

    history.py add RUN.json ... [--store STORE]       the runs' GPUs: their card values, precision and verdict
    history.py boards [--store STORE]                 every board: runs, first and last, its last verdict
    history.py show BOARD [--store STORE] [--plot PREFIX]   a board's series, value by value
    history.py drift [BOARD] [--store STORE] [--check]   values that moved beyond their noise and stayed there
    history.py export BOARD --out FILE.csv            one board's series as a CSV Apache Otava reads

STORE: a SQLite file (the default: $GPUBENCH_HISTORY, else gpubench-history.sqlite) or a PostgreSQL URL
(postgresql://...; Debian's python3-psycopg) for a fleet whose nodes share one. A run is stored once (its board,
host, date and preset are its key); writers at once (a node's GPUs, a fleet's nodes) each add theirs.

Drift (analysis/store/drift.py): a value that moved beyond its noise and stayed there, "DRAM read -3.8% since 2026-11-20,
a change at run 14". Exit: 0; 1 with --check when a drift is named; 2 bad input or a store that cannot be used
(said in one line).
"""
import argparse
import csv
import math
import os
import sqlite3
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import archive, cli  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.store.drift import GRID_UNITS  # noqa: E402
from analysis.store.history_store import DEFAULT, StoreError, drifts, open_store, records, series  # noqa: E402

def plot(data, board, prefix):
    """PREFIX.png: each value's series, its precision as error bars (matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise cli.UsageError("history.py show --plot needs matplotlib (Debian: python3-matplotlib)") from None
    keys = sorted(k for k, points in data.items() if points[0][5] not in GRID_UNITS)
    columns, rows = 4, max(1, math.ceil(len(keys) / 4))
    figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 2.4 * rows), squeeze=False)
    for axis, (key, preset) in zip(axes.flat, keys):
        points = data[(key, preset)]
        axis.errorbar([p[0] for p in points], [p[2] for p in points],
                      yerr=[abs(p[2]) * (p[3] or 0.0) for p in points], fmt="o-", markersize=3)
        axis.set_title(f"{points[0][4] or key} ({preset})"[:48], fontsize=7), axis.tick_params(labelsize=6)
    for axis in list(axes.flat)[len(keys):]:
        axis.axis("off")
    figure.suptitle(board), figure.tight_layout()
    figure.savefig(prefix + ".png", dpi=80)
    print(f"history.py: wrote {prefix}.png", file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["add", "boards", "show", "drift", "export"])
    parser.add_argument("args", nargs="*")
    parser.add_argument("--store", help="a SQLite path or a PostgreSQL URL (default: $GPUBENCH_HISTORY)")
    parser.add_argument("--limits", "--ranges", dest="limits_file", default=limit_table.default_path())
    parser.add_argument("--check", action="store_true", help="drift: exit 1 when a drift is named")
    parser.add_argument("--out", help="export: the CSV")
    parser.add_argument("--plot", metavar="PREFIX", help="show: PREFIX.png, a panel per value (needs matplotlib)")
    args = parser.parse_intermixed_args(argv)
    target = args.store or os.environ.get("GPUBENCH_HISTORY") or DEFAULT
    if args.command != "add" and "://" not in target and not os.path.isfile(target):
        # Only "add" makes a store: reading a mistyped path would make an empty one and say nothing.
        raise cli.UsageError(f"history store {target}: no such file (history.py add RUN.json makes one)")
    try:
        store = open_store(args.store)
        return run(store, args)
    except StoreError as e:
        raise cli.UsageError(str(e)) from None
    except (sqlite3.Error, OSError) as e:
        raise cli.UsageError(f"history store {args.store or os.environ.get('GPUBENCH_HISTORY') or DEFAULT}: "
                             f"{e}") from None


def run(store, args):
    if args.command == "add":
        limits = limit_table.load(args.limits_file)
        added = kept = 0
        for path in archive.expand(args.args):
            for record, values in records(path, limits):
                if store.add(record, values):
                    added += 1
                else:
                    kept += 1
        print(f"history.py: {added} GPU run(s) added, {kept} already there ({store.target})", file=sys.stderr)
        return 0
    if args.command == "boards":  # the drifting boards first
        listed = []
        for board, runs, first, last, name in store.rows(
                "SELECT board, COUNT(*), MIN(time), MAX(time), MAX(gpu_name) FROM runs GROUP BY board ORDER BY board"):
            last_verdict = store.rows("SELECT verdict FROM runs WHERE board = ? ORDER BY time DESC, id DESC LIMIT 1",
                                      (board,))[0][0]
            drifting = drifts(store, board)
            listed.append((not drifting, f"{board} {name}: {runs} run(s) {first[:10]}..{last[:10]}, last verdict "
                           f"{last_verdict}" + (f"; DRIFT: {drifting[0]}" + (f" (+{len(drifting) - 1} more)"
                                                                             if len(drifting) > 1 else "")
                                                if drifting else "")))
        for _, line in sorted(listed, key=lambda item: item[0]):
            print(line)
        return 0
    if not args.args and args.command != "drift":
        raise cli.UsageError(f"history.py {args.command} needs a BOARD (history.py boards lists them)")
    for board in args.args:
        if not store.rows("SELECT 1 FROM runs WHERE board = ? LIMIT 1", (board,)):
            raise cli.UsageError(f"no run of board {board} in {store.target} (history.py boards lists them)")
    if args.command == "show":
        data = series(store, args.args[0])
        for (key, preset), points in sorted(data.items()):
            print(f"{points[0][4] or key} ({points[0][5]}, {preset}): " + ", ".join(f"{p[2]:.4g}" for p in points))
        if args.plot:
            plot(data, args.args[0], args.plot)
        return 0
    if args.command == "export":
        if not args.out:
            raise cli.UsageError("history.py export needs --out FILE.csv")
        data = {f"{key}@{preset}": points for (key, preset), points in series(store, args.args[0]).items()}
        times = sorted({p[1] for points in data.values() for p in points})
        with open(args.out, "w", newline="") as f:  # Otava's CSV: a time column, then one column per metric
            writer = csv.writer(f)
            writer.writerow(["time"] + sorted(data))
            for t in times:
                writer.writerow([t] + [next((p[2] for p in data[k] if p[1] == t), "") for k in sorted(data)])
        print(f"history.py: wrote {args.out}", file=sys.stderr)
        return 0
    boards = args.args or [b for (b,) in store.rows("SELECT DISTINCT board FROM runs ORDER BY board")]
    named = 0
    for board in boards:
        for line in drifts(store, board):
            print(f"drift: {board}: {line}")
            named += 1
    return 1 if args.check and named else 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
