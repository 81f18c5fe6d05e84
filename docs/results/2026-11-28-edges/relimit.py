#!/usr/bin/env python3
"""The one SKU limit whose healthy readings lay within their own stated precision of it (the L2 read of a small data
set all SMs share, +-4.0-4.4%), moved by make_ranges.py's rule (beyond_precision) from the calibration's lowest
reading and the precision the shipped noise model states for that row, without remaking the other limits. Run from
the repository's root; it rewrites analysis/verdict/reference_ranges.json."""
import json
import os
import sys

sys.path.insert(0, os.getcwd())
from analysis.cards import noise  # noqa: E402
from analysis.tables import make_ranges  # noqa: E402

RANGES = "analysis/verdict/reference_ranges.json"
ROW = "CacheBandwidth/read_shared/KiB:2048/manual_time"
WITHIN = 0.006  # the widest sampling interval such rows had (x4c: 0.47%), so the precision is the widest stated
with open(RANGES) as f:
    table = json.load(f)
model = noise.load()
for sku, gpu in (("h100-sxm5", "NVIDIA H100 80GB HBM3"), ("h200", "NVIDIA H200")):
    for quantity in ("bytes_per_clock_per_sm", "bytes_per_second"):
        entry = table["skus"][sku]["ranges"][f"bandwidth.l2_shared_small.{quantity}"]
        precision = noise.stated_half_width(model, "cache_bandwidth", WITHIN, gpu, f"{ROW} {quantity}")
        low = make_ranges.beyond_precision([entry["seen"][0]], [precision], -1)
        if low < entry["low"]:
            print(f"{sku} {quantity}: low {entry['low']:.6g} -> {low:.6g} (lowest healthy {entry['seen'][0]:.6g}, "
                  f"stated +-{precision:.2%})")
            entry["low"] = round(low, 6)
            entry["source"] += (f"; low moved to the lowest reading less its stated precision (+-{precision:.1%}), "
                                "2026-11-28 (docs/results/2026-11-28-edges)")
with open(RANGES, "w") as f:
    json.dump(table, f, indent=1)
    f.write("\n")
