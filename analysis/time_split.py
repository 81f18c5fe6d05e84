#!/usr/bin/env python3
"""Where a run's time went, family by family: each row's wall time (setup, Google Benchmark's iteration-count
trials, the counter pass, checks: `gpubench.wall_s`) against the GPU time of its final timed launches
(iterations x real_time). Markdown on stdout. Several files read as one run (a preset stopped and resumed);
rows interrupted before they ran are not counted.

    time_split.py RUN.json [MORE.json ...]
"""
import argparse
import collections
import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import cli  # noqa: E402
from analysis.model import report as report_model  # noqa: E402

SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def split(report):
    """{family: (rows, wall seconds, final timed seconds)} in run order."""
    found = collections.OrderedDict()
    for row in report.all_rows:
        if row.aggregate or row.error == report_model.INTERRUPTED:
            continue
        rows, wall, timed = found.get(row.family, (0, 0.0, 0.0))
        wall += row.wall_s or 0.0
        if row.ok and "iterations" in row:
            timed += row["iterations"] * row["real_time"] * SECONDS.get(row.get("time_unit", "ns"), 1e-9)
        found[row.family] = (rows + 1, wall, timed)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    args = parser.parse_args()
    found = split(cli.load(args.json))
    if not any(wall for _, wall, _ in found.values()):
        raise cli.UsageError(f"{' '.join(args.json)}: its rows carry no wall time (runs from before 2026-11-23)")
    total_wall = sum(wall for _, wall, _ in found.values())
    total_timed = sum(timed for _, _, timed in found.values())
    rows = sum(n for n, _, _ in found.values())
    print(f"{total_wall:.1f} s of wall, {total_timed:.1f} s of it the final timed launches, "
          f"{total_wall - total_timed:.1f} s the rest ({(total_wall - total_timed) / rows:.2f} s a row)\n")
    print("| family | rows | wall (s) | final timed launches (s) | the rest (s) | the rest per row (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    for family, (n, wall, timed) in sorted(found.items(), key=lambda item: -item[1][1]):
        print(f"| {family} | {n} | {wall:.1f} | {timed:.1f} | {wall - timed:.1f} | {(wall - timed) / n:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
