#!/usr/bin/env python3
"""Read memory levels off a pointer-chase staircase (rows with a `bytes` argument and cycles_per_load
or ns_per_load), by one documented rule:

1. Sort points by working-set size; take each size's latency (mean over repetitions).
2. Walk up the sizes. A point within `tolerance` (default 15%) of the current plateau's median joins
   it; a point more than that above starts a transition.
3. A plateau is kept when it has at least `min_points` (default 2) points. Points between kept
   plateaus are the transitions (the cache's edge: associativity and replacement blur it).
4. Each level reports its latency (median of its points) and its capacity: the largest working set
   still on the plateau (a lower bound) and the next size measured (an upper bound).
Levels are named by position: first "L1", last "DRAM", those between "L2", "L2 (far)", ... A last level
whose sets all fit in the L2 (where the run says its size) is not DRAM: it is named as those between.
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from analysis.model import cli  # noqa: E402


def points(report, prefix, metric="cycles_per_load", stride=None):
    """(working set in bytes, mean `metric` over repetitions) of the chase rows registered as `prefix`,
    at `stride` bytes between nodes when given, sorted by size."""
    values = defaultdict(list)
    for row in chase_rows(report, prefix, metric, stride):
        values[working_set(row)].append(float(row[metric]))
    return sorted((size, statistics.mean(v)) for size, v in values.items())


def chase_rows(report, prefix, metric="cycles_per_load", stride=None):
    """The finished rows of a chase family that carry `metric`, at `stride` when given."""
    rows = report.rows(prefix, metric)
    return rows if stride is None else [r for r in rows if float(r.args.get("stride", -1)) == stride]


def working_set(row):
    """A chase row's set in bytes: its `bytes` argument (the set it was registered for)."""
    return float(row.args["bytes"])


def find_levels(points, tolerance=0.15, min_points=2, largest_cache=None):
    """points: sorted (size, latency). Returns a list of dicts: name, latency, min_bytes (largest size
    on the plateau), max_bytes (first size above it, or None), points. `largest_cache` (bytes, the L2's
    where known): a last plateau whose sets all fit in it is not DRAM (a sweep cut short), and is named as
    the levels between are."""
    plateaus = []
    current = []
    for size, latency in points:
        if current and latency > statistics.median(l for _, l in current) * (1 + tolerance):
            plateaus.append(current)
            current = []
        elif current and latency < statistics.median(l for _, l in current) * (1 - tolerance):
            # latency fell (noise or a measurement artefact): never merge across it silently
            plateaus.append(current)
            current = []
        current.append((size, latency))
    if current:
        plateaus.append(current)
    kept = [p for p in plateaus if len(p) >= min_points]
    levels = []
    sizes = [s for s, _ in points]
    for index, plateau in enumerate(kept):
        largest = plateau[-1][0]
        above = [s for s in sizes if s > largest]
        levels.append({
            "latency": statistics.median(l for _, l in plateau),
            "min_bytes": largest,
            "max_bytes": above[0] if above else None,
            "points": len(plateau),
            "sizes": [s for s, _ in plateau],
        })
    for index, level in enumerate(levels):
        if index == 0:
            level["name"] = "L1"
        elif index == len(levels) - 1 and len(levels) > 1 and not (largest_cache and level["min_bytes"] <= largest_cache):
            level["name"] = "DRAM"
            level["max_bytes"] = None  # the last level has no capacity edge
        elif index == 1:
            level["name"] = "L2"
        else:
            level["name"] = "L2 (far)" if index == 2 else f"level {index + 1}"
    return levels


def find_step(points, min_points=2):
    """points: sorted (size, latency) that rise by one small step (a TLB's reach: a few percent on an L2
    hit, about as large as the placement noise between sizes). The split that best fits two constant
    latencies (least squares) is the edge; each side's mean is its level. Returns two levels in
    find_levels' format, or [] with fewer than 2 * min_points points."""
    if len(points) < 2 * min_points:
        return []
    best = None
    for split in range(min_points, len(points) - min_points + 1):
        low = [l for _, l in points[:split]]
        high = [l for _, l in points[split:]]
        error = sum((l - statistics.mean(low)) ** 2 for l in low) + sum((l - statistics.mean(high)) ** 2 for l in high)
        if best is None or error < best[0]:
            best = (error, split)
    split = best[1]
    sides = (points[:split], points[split:])
    return [{"name": name, "latency": statistics.mean(l for _, l in side), "min_bytes": side[-1][0],
             "max_bytes": points[split][0] if index == 0 else None, "points": len(side),
             "sizes": [s for s, _ in side]}
            for index, (name, side) in enumerate(zip(("below the step", "above the step"), sides))]


def describe(levels, unit):
    lines = []
    for level in levels:
        capacity = "" if level["max_bytes"] is None else \
            f", capacity between {level['min_bytes'] / 1024:.0f} KiB and {level['max_bytes'] / 1024:.0f} KiB"
        lines.append(f"{level['name']}: {level['latency']:.1f} {unit}{capacity} ({level['points']} points)")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", help="gpubench --benchmark_out JSON")
    parser.add_argument("--family", default="PointerChase/cached", help="registered name of the chase")
    parser.add_argument("--metric", default="cycles_per_load")
    parser.add_argument("--stride", type=float, default=128, help="only rows with this stride argument (0: any)")
    parser.add_argument("--tolerance", type=float, default=0.15)
    args = parser.parse_args()
    found = points(cli.load(args.json), args.family, args.metric, args.stride or None)
    if not found:
        return cli.fail(f"no rows of {args.family} with {args.metric} in {args.json}")
    print(describe(find_levels(found, args.tolerance), args.metric.replace("_per_load", " per load")))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
