#!/usr/bin/env python3
"""Plot pointer-chase latency against working-set size from gpubench JSON: every GPU load path and
the CPU chase on one figure (ns per load, log-2 x axis), with the levels latency_levels.py reads off
the GPU's cached curve marked. Needs matplotlib.

    plot_latency.py run.json [more.json ...] -o latency.png
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import latency_levels  # noqa: E402

SERIES = [
    ("PointerChase/cached", "GPU, ld.ca (L1 + L2)"),
    ("PointerChase/l2_only", "GPU, ld.cg (L2 only)"),
    ("PointerChase/volatile", "GPU, ld.cv"),
    ("PointerChaseCPU", "CPU"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    parser.add_argument("-o", "--output", default="latency.png")
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    figure, axes = plt.subplots(figsize=(9, 5.5))
    device = next((r["context"].get("gpu_name") for r in reports if r.get("context", {}).get("gpu_name")), "GPU")
    plotted = 0
    for family, label in SERIES:
        points = [p for r in reports for p in latency_levels.points_from_json(r, family, "ns_per_load")]
        if not points:
            continue
        points.sort()
        axes.plot([s for s, _ in points], [l for _, l in points], marker="o", markersize=3, label=label)
        plotted += 1
        if family == "PointerChase/cached":
            for level in latency_levels.find_levels(points):
                axes.axhline(level["latency"], color="grey", linewidth=0.6, linestyle=":")
                axes.annotate(f"{level['name']} {level['latency']:.0f} ns", (points[0][0], level["latency"]),
                              textcoords="offset points", xytext=(2, 3), fontsize=8, color="dimgrey")
    if not plotted:
        print("no pointer-chase rows with ns_per_load in the input", file=sys.stderr)
        return 1
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("working set (bytes)")
    axes.set_ylabel("ns per dependent load")
    axes.set_title(f"Pointer-chase latency: {device} and host CPU")
    axes.grid(True, which="both", linewidth=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(args.output, dpi=130)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
