#!/usr/bin/env python3
"""A SKU's limits judged on boards they were not made from: for each board of the runs, the SKU's limits made again
(make_ranges) from the other boards' runs alone, and each of that board's runs judged by them in the SKU layer. Prints
each board's values outside, and the count of false alarms over every board (every run given is of a healthy board:
a value outside is a false alarm of limits made without it). Then the limits of every board together, each run judged
by them (what the shipped table would say).

    sku_limits_leave_one_out.py --sku h200 --name "H200 141GB HBM3e" --names "NVIDIA H200" RUN.json...
"""
import argparse
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT)
from analysis.model import archive, cli  # noqa: E402
from analysis.tables import make_ranges  # noqa: E402
from analysis.verdict import layers  # noqa: E402


def judged(parts_built, entry):
    """[(run, label, value, limit text)] of the values of `parts_built` [(path, values, preset)] outside `entry`."""
    out = []
    for path, values, preset in parts_built:
        checks, *_ = layers.check_layer("sku", entry, values, preset)
        for c in checks:
            if c["inside"] is False:
                bound = f">= {c['low']:.4g}" if c.get("low") is not None and c["value"] < c["low"] else \
                    f"<= {c['high']:.4g}"
                out.append((os.path.basename(path), c["label"], c["value"], bound))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--sku", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--names", action="append", required=True)
    args = parser.parse_args()
    runs = archive.expand(args.runs)
    by_board = {}
    for path in runs:
        for _, board, _, part in make_ranges.parts_of([path]):
            by_board.setdefault(board, []).append((path, part))
    built = {}
    for board, items in by_board.items():
        built[board] = [(path, v, part.context.get("gpubench_preset"))
                        for (path, part), (_, _, _, v) in zip(items, [(None, None, None, make_ranges.card_values(
                            [(path, board, part.context.get("gpu_name"), part)])[0][2]) for path, part in items])]
    alarms = checked = 0
    print(f"{len(runs)} runs on {len(by_board)} boards; each board judged by the {args.name} limits of the others")
    for board in sorted(by_board):
        others = sorted({p for b, items in by_board.items() if b != board for p, _ in items})
        entry = make_ranges.make_entry(others, args.name, args.names, f"all but {board}")
        found = judged(built[board], entry)
        checked += sum(len(values) for _, values, _ in built[board])
        alarms += len(found)
        print(f"{board[:12]}: {len(built[board])} run(s), {len(found)} value(s) outside" +
              "".join(f"\n    {run}: {label} {value:.4g} ({limit})" for run, label, value, limit in found))
    print(f"left out: {alarms} false alarm(s) among {checked} values judged")
    entry = make_ranges.make_entry(runs, args.name, args.names, "every board")
    every = [item for board in sorted(built) for item in built[board]]
    found = judged(every, entry)
    print(f"made from every board: {len(found)} value(s) outside" +
          "".join(f"\n    {run}: {label} {value:.4g} ({limit})" for run, label, value, limit in found))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
