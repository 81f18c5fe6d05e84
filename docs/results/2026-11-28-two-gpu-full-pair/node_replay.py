#!/usr/bin/env python3
"""The node layer replayed over node runs with the limits as they are now: for each value the node judges, the run and
GPU where it came closest to its tolerance, as a share of it (the distance from the node's median on the fault's side
over the tolerance plus the value's own uncertainty, as analysis/verdict/layers.node_checks judges). Run from the
repository's root:

    node_replay.py NODE_RUN.json [...]
"""
import collections
import os
import sys

sys.path.insert(0, os.getcwd())
from analysis.cards import card  # noqa: E402
from analysis.model import cli  # noqa: E402
from analysis.verdict import layers, limits as limit_table  # noqa: E402


def closest(paths, limits):
    """{key: (share of the tolerance, distance, tolerance, run, gpu, inside)} at each value's closest."""
    found = collections.defaultdict(list)
    for path in paths:
        cards = [(gpu, card.Card(part).build()) for gpu, part in cli.load(path).devices()]
        for gpu, checks in layers.node_checks(cards, limits).items():
            for check in checks:
                tolerance, guard = check["tolerance"], check["guard"]
                off = {"lower": check["off"], "higher": -check["off"]}.get(check["better"], abs(check["off"]))
                found[check["key"]].append((off / (tolerance + guard), off, tolerance, os.path.basename(path), gpu,
                                            check["inside"]))
    return {key: max(seen) for key, seen in found.items()}


def main(paths):
    worst = closest(paths, limit_table.load())
    print(f"{len(worst)} values judged against the node in {len(paths)} runs; the closest to their tolerance:")
    print("| share | distance | tolerance | value | run | GPU | inside |\n|---:|---:|---:|---|---|---:|---|")
    for key, (share, off, tolerance, run, gpu, inside) in sorted(worst.items(), key=lambda kv: -kv[1][0])[:15]:
        print(f"| {share:.2f} | {off:+.1%} | {tolerance:.1%} | {key} | {run} | {gpu} | {inside} |")


if __name__ == "__main__":
    missing = [p for p in sys.argv[1:] if not os.path.isfile(p)]
    if not sys.argv[1:] or missing:
        sys.exit(f"node_replay.py: {missing[0] + ': no such file' if missing else 'name the node runs'}")
    main(sys.argv[1:])
