#!/usr/bin/env python3
"""The L2 read of a small set all SMs share reads lower in a node (every GPU at once) than alone: node checks of
H200s read down to 50.43 bytes per clock per SM, where the calibration's lowest alone was 51.37, so healthy node
readings lay within their own stated precision of the limit relimit.py (2026-11-28-edges) had set. This takes the
node cards named (card-gpuN.json of node runs, every GPU of them healthy) as healthy readings too: each SKU's low
moves to the lowest reading, alone or in a node, less its stated precision (make_ranges.beyond_precision), and the
seen range takes the node readings in. Run from the repository's root; it rewrites
analysis/verdict/reference_ranges.json.

    relimit_node.py NODE.card-gpu0.json [...]
"""
import json
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-edges"))
from analysis.cards import noise  # noqa: E402
from analysis.tables import make_ranges  # noqa: E402

RANGES = "analysis/verdict/reference_ranges.json"
ROW = "CacheBandwidth/read_shared/KiB:2048/manual_time"
WITHIN = 0.006  # relimit.py's: the widest sampling interval such rows had
QUANTITIES = ("bytes_per_clock_per_sm", "bytes_per_second")


def node_readings(cards):
    """{(SKU key, GPU name, quantity): [reading]} of the node cards."""
    found = {}
    for path in cards:
        with open(path) as f:
            card = json.load(f)
        sku = next((layer["key"] for layer in card["ranges"]["layers"] if layer["layer"] == "sku"), None)
        for value in card["values"]:
            for quantity in QUANTITIES:
                if value["key"] == f"bandwidth.l2_shared_small.{quantity}" and sku:
                    found.setdefault((sku, card["device"]["name"], quantity), []).append(value["value"])
    return found


def main(cards):
    with open(RANGES) as f:
        table = json.load(f)
    model = noise.load()
    for (sku, gpu, quantity), readings in sorted(node_readings(cards).items()):
        entry = table["skus"][sku]["ranges"][f"bandwidth.l2_shared_small.{quantity}"]
        precision = noise.stated_half_width(model, "cache_bandwidth", WITHIN, gpu, f"{ROW} {quantity}", node=True)
        lowest = min(min(readings), entry["seen"][0])
        low = make_ranges.beyond_precision([lowest], [precision], -1)
        print(f"{sku} {quantity}: {len(readings)} node readings {min(readings):.6g}-{max(readings):.6g}; low "
              f"{entry['low']:.6g} -> {min(low, entry['low']):.6g} (stated +-{precision:.2%})")
        if low < entry["low"]:
            entry["low"] = round(low, 6)
            entry["seen"] = [round(lowest, 2 if quantity.endswith("sm") else -10), entry["seen"][1]]  # as written
            entry["source"] += (f"; with {len(readings)} healthy node readings ({min(readings):.4g}-{max(readings):.4g}), "
                                f"low moved to the lowest less its stated precision (+-{precision:.1%}), 2026-11-28 "
                                "(docs/results/2026-11-28-node-full)")
    with open(RANGES, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
