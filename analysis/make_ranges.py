#!/usr/bin/env python3
"""Reference ranges of a SKU from repeated gpubench runs on GPUs of it: every card value that at least
two of the runs have, from its lowest to its highest reading, widened by --margin on each side, written
into analysis/reference_ranges.json under --sku (other SKUs kept).

    make_ranges.py --sku h100-sxm5 --name "H100 SXM5" --match "H100 80GB HBM3" run1.json run2.json ...
"""
import argparse
import json
import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis import card, cli, ranges  # noqa: E402

# Values that say more about the host, the run or the other GPUs than about this GPU.
NOT_OF_THE_GPU = ("peer.", "mlp.host.", "energy.", "memory.by_sm.", "bandwidth.stream_read.claimed_vs",
                  "bandwidth.stream_copy.claimed_vs")


def readings(paths):
    """{key: [(value, label, unit)...]} over every GPU of every run."""
    found = {}
    for path in paths:
        for _, part in cli.load(path).devices():
            for v in card.Card(part).build().values:
                if v["value"] is not None and not v["key"].startswith(NOT_OF_THE_GPU):
                    found.setdefault(v["key"], []).append(v["value"])
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--sku", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--match", action="append", required=True, help="text the GPU's name contains")
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--source", required=True, help="what the runs were (device, commands, dates)")
    parser.add_argument("--file", default=ranges.RANGES)
    args = parser.parse_args()
    table = ranges.load(args.file)
    entry = {"name": args.name, "match": args.match, "ranges": {}}
    for key, values in sorted(readings(args.runs).items()):
        if len(values) < 2:
            continue
        low, high = min(values), max(values)
        entry["ranges"][key] = {"low": round(low * (1 - args.margin), 6), "high": round(high * (1 + args.margin), 6),
                                "source": f"{args.source}: {len(values)} readings {low:.4g}-{high:.4g}, "
                                          f"widened by {args.margin:.0%}"}
    table["skus"][args.sku] = entry
    with open(args.file, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")
    print(f"{args.sku}: {len(entry['ranges'])} ranges from {len(args.runs)} run(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
