#!/usr/bin/env python3
"""Drift on a real series of one board (docs/results/2026-11-26-history): the runs as they are (no drift wanted), then
with a planted step of 3% on the DRAM read from run K (named at run K to K+4 wanted) and a planted slide of 0.5% a
run (named before the value crosses the SKU's limit). Prints one line per case.

    history_planted.py RUN.json.gz ... [--step-at K]
"""
import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
from analysis.model import archive  # noqa: E402
from analysis.store import history_store as history  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.model import report as report_model  # noqa: E402

DRAM_READ = "bandwidth.stream_read.bytes_per_second"


def planted(paths, tmp, scale):
    out = []
    for n, path in enumerate(paths, 1):
        run = report_model.read_json(path)
        run["context"]["date"] = f"2026-12-{n:02d}T10:00:00+00:00"  # one run a day, in this order
        for row in run["benchmarks"]:
            if row["name"].startswith("Stream/read/") and "bytes_per_second" in row:
                row["bytes_per_second"] *= scale(n)
        out.append(os.path.join(tmp, f"run-{n:02d}.json"))
        with open(out[-1], "w") as f:
            json.dump(run, f)
    return out


def first_named(paths, tmp, limits):
    """(the run after which a drift of the DRAM read is first named, its line), adding the runs one by one."""
    store = history.open_store(os.path.join(tmp, "h.sqlite"))
    for n, path in enumerate(paths, 1):
        for record, values in history.records(path, limits):
            store.add(record, values)
        board = store.rows("SELECT DISTINCT board FROM runs")[0][0]
        named = [line for line in history.drifts(store, board) if "DRAM" in line and "read" in line]
        if named:
            return n, named[0]
    return None, None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--step-at", type=int, default=5)
    args = parser.parse_args()
    args.runs = archive.expand(args.runs)
    limits = limit_table.load(limit_table.RANGES)
    with tempfile.TemporaryDirectory() as tmp:
        store = history.open_store(os.path.join(tmp, "as-is.sqlite"))
        for path in args.runs:
            for record, values in history.records(path, limits):
                store.add(record, values)
        boards = [b for (b,) in store.rows("SELECT DISTINCT board FROM runs")]
        named = [line for board in boards for line in history.drifts(store, board)]
        print(f"as measured: {len(args.runs)} runs of {', '.join(boards)}: {len(named)} drift(s) named"
              + "".join(f"\n  {line}" for line in named))
    k = args.step_at
    with tempfile.TemporaryDirectory() as tmp:
        n, line = first_named(planted(args.runs, tmp, lambda n: 0.97 if n >= k else 1.0), tmp, limits)
        print(f"a 3% step from run {k}: " + (f"named after run {n}: {line}" if n else "never named"))
    with tempfile.TemporaryDirectory() as tmp:
        slide = lambda n: 1 - 0.005 * (n - 1)  # noqa: E731
        paths = planted(args.runs, tmp, slide)
        n, line = first_named(paths, tmp, limits)
        name = report_model.read_json(args.runs[0])["context"].get("gpu_name")
        sku = next((e for e in limits["skus"].values() if name in e["names"]), {})
        low = sku.get("ranges", {}).get(DRAM_READ, {}).get("low")
        value = max(r["bytes_per_second"] for r in report_model.read_json(paths[(n or 1) - 1])["benchmarks"]
                    if r["name"].startswith("Stream/read/") and "bytes_per_second" in r)
        print("a slide of 0.5% a run: " + (f"named after run {n} (DRAM read {value:.4g} B/s, the SKU's limit "
                                           f"{low:.4g}): {line}" if n else "never named"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
