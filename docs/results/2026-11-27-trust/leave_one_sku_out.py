#!/usr/bin/env python3
"""The verdict's architecture layer with one SKU left out: the sm_90 limits made again (make_ranges) from the
calibration runs of the other SKU only, the H100 and H200 SKU limits removed, then every calibration run of the SKU
left out judged by them (judge_all, as card.py --check judges before any second measurement). Says, per SKU left
out, how many of its GPUs' verdicts are normal, how many have a value past a limit within its own uncertainty (they
would be measured again: judge.near) and how many are abnormal, and which values.

    python3 docs/results/2026-11-27-trust/leave_one_sku_out.py
"""
import collections
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, ROOT)
from analysis.model import archive, cli  # noqa: E402
from analysis.tables import make_ranges  # noqa: E402
from analysis.verdict import judge  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict.table import NAME_OF  # noqa: E402

RESULTS = os.path.join(ROOT, "docs", "results")
CALIBRATION = [os.path.join(RESULTS, d, "raw.tar.xz", "runs") for d in ("2026-11-25-verdicts", "2026-11-25-checks",
                                                                      "2026-11-26-verdicts")]
PLANTED = ("busy", "flip", "streamer", "planted", "link", "node-gpu", "memory")
SKUS = ("NVIDIA H100 80GB HBM3", "NVIDIA H200")


def runs():
    return sorted(p for d in CALIBRATION for p in archive.runs(os.path.join(d, "*.json"))
                  if not any(word in os.path.basename(p) for word in PLANTED))


def names_of(path):
    return {part.context.get("gpu_name") for _, part in cli.load(path).devices()}


def main():
    every = runs()
    for left_out in SKUS:
        kept = [p for p in every if left_out not in names_of(p)]
        judged_runs = [p for p in every if names_of(p) == {left_out}]
        table = limit_table.load(limit_table.RANGES)
        table["skus"] = {k: v for k, v in table["skus"].items() if not set(SKUS) & set(v["names"])}
        shipped = table["architectures"]["sm_90"]
        table["architectures"]["sm_90"] = make_ranges.make_arch_entry(
            kept, "sm_90", shipped["name"], f"calibration runs without {left_out}", min_skus=1)
        counts, outside, near, missing = (collections.Counter(), collections.Counter(), collections.Counter(),
                                          collections.Counter())
        boards = set()
        for path in judged_runs:
            for _, card, status, _ in judge.judge_all(cli.load(path), table):
                boards.add(card.context.get("gpu_uuid"))
                counts[NAME_OF[status]] += 1
                for c in judge.outside(card.checks):
                    outside[f"{c['key']} ({c['layer']})"] += 1
                for c in judge.near(card.checks):
                    near[c["key"]] += 1
                if NAME_OF[status] == "incomplete":
                    presets = card.context.get("gpubench_preset")
                    for m in card.checks["missing"]:
                        missing[f"{m['key']} (preset {presets})"] += 1
        print(f"{left_out} left out: limits from {len(kept)} runs of the other SKU; {len(judged_runs)} runs of "
              f"{len(boards)} boards judged: " + ", ".join(f"{n} {name}" for name, n in counts.most_common()))
        for key, n in outside.most_common():
            print(f"  outside: {key}: {n}")
        for key, n in missing.most_common(6):
            print(f"  missing (incomplete): {key}: {n}")
        for key, n in near.most_common():
            print(f"  past its limit within its own uncertainty (measured again): {key}: {n}")


if __name__ == "__main__":
    sys.exit(cli.main(main))
