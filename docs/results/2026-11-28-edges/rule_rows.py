#!/usr/bin/env python3
"""Writes the rule calibration's rows into analysis/cards/noise_model.json (noise.RULE_ROWS) from the 54 runs its
rule floors were made from (made_rule: 2026-11-26-precision and 2026-11-26-node-production), without remaking its
floors. Run from the repository's root."""
import json
import os
import sys

sys.path.insert(0, os.getcwd())
from analysis.cards import noise  # noqa: E402
from analysis.model import archive  # noqa: E402
from analysis.tables import make_noise  # noqa: E402

R = "docs/results/2026-11-26-precision/raw.tar.xz/runs"
N = "docs/results/2026-11-26-node-production/raw.tar.xz"
PATTERNS = [f"{R}/h100m-new-check-m-?.json", f"{R}/h100m-new-quick-m-?.json", f"{R}/h200m-new-check-m-?.json",
            f"{R}/h200m-new-quick-m-?.json", f"{R}/h100-d5ab3546-check-?.json", f"{R}/h100-d5ab3546-quick-?.json",
            f"{R}/h200-4f1a8ff9-check-?.json", f"{R}/h200-4f1a8ff9-quick-?.json", f"{N}/runs/x4-alone-?.json",
            f"{N}/runs/x4-node-?.json", f"{N}/runs-s15/x4h-t-alone-?.json", f"{N}/runs-s15/x4h-t-node-1.json",
            f"{N}/runs-turns/x4f-t-alone-?.json", f"{N}/runs-turns/x4f-t-node-1.json", f"{N}/runs-x4g/x4g-t-alone-?.json",
            f"{N}/runs-x4g/x4g-t-node-?.json"]


def rule_runs():
    """The 54 runs made_rule names, as paths through their archives."""
    paths = [p for pattern in PATTERNS for p in archive.runs(pattern)]
    assert len(paths) == 54, len(paths)
    return paths


def main():
    paths = rule_runs()
    rows = make_noise.rule_rows(make_noise.rule_pairs(make_noise.parts_of(paths, None)))
    with open(noise.MODEL) as f:
        model = json.load(f)
    model[noise.RULE_ROWS] = rows
    model["made_rule_rows"] = {"runs": len(paths), "source": "the runs made_rule names (2026-11-26-precision, "
                               "2026-11-26-node-production), by docs/results/2026-11-28-edges/rule_rows.py"}
    with open(noise.MODEL, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"{noise.MODEL}: {len(rows)} rows of the rule calibration, from {len(paths)} runs")


if __name__ == "__main__":
    main()
