#!/usr/bin/env python3
"""Writes the class l2_partial_writes (Normalize's vectors held in the L2) into analysis/cards/noise_model.json, from
the pairs of runs of identical code that measured it: the 54 rule runs the model's other rule floors came from
(made_rule), and two full pairs of one H100 each (session 19's GPU-d46fddff, h1f/h1g's GPU-dba57651), named on the
command line. Its floor, run to run and board to board, is the largest change any of those pairs showed (no pair
moved past it); its run-to-run deviation is the least that leaves at most 5% of their values outside each other's
stated interval. Other classes stay as they are. Run from the repository's root:

    l2_partial_writes.py FULL_BEFORE.json FULL_AFTER.json [FULL_BEFORE.json FULL_AFTER.json ...]
"""
import json
import math
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-edges"))
from analysis.cards import noise  # noqa: E402
from analysis.tables import make_noise  # noqa: E402
from rule_rows import rule_runs  # noqa: E402

CLASS = "l2_partial_writes"


def class_pairs(paths, where):
    return make_noise.rule_pairs(make_noise.parts_of(paths, None), where).get(CLASS, [])


def largest(pairs):
    change, name = max(((pair[0], pair[5]) for pair in pairs), default=(0.0, None))
    return math.ceil(change * 200) / 200, name  # up to the next 0.5%


def main(full_runs):
    if len(full_runs) % 2:
        sys.exit("give the full runs in pairs of one board")
    rules = rule_runs()
    same = class_pairs(rules, noise.SAME_BOARD)
    for i in range(0, len(full_runs), 2):
        same += class_pairs(full_runs[i:i + 2], noise.SAME_BOARD)
    across = class_pairs(rules, noise.CROSS_BOARD)
    floor, set_by = largest(same)
    floor_across, set_by_across = largest(across)
    repeats = [pair for pair in same if pair[7]] or same
    entry = {"meaning": noise.CLASSES[CLASS],
             "same_board": floor, "same_board_results": len(same), "same_board_largest": floor,
             "same_board_set_by": set_by,
             "cross_board": max(floor, floor_across), "cross_board_results": len(across),
             "cross_board_largest": max(floor, floor_across), "cross_board_set_by": set_by_across or set_by,
             "repeat_sigma": round(make_noise.honest_sigma(repeats), 5), "repeat_sigma_by_gpu": {},
             "same_board_rule": floor, "same_board_rule_results": len(same), "same_board_rule_set_by": set_by,
             "cross_board_rule": max(floor, floor_across), "cross_board_rule_results": len(across),
             "cross_board_rule_set_by": set_by_across or set_by}
    with open(noise.MODEL) as f:
        model = json.load(f)
    model["classes"][CLASS] = entry
    model["made_l2_partial_writes"] = {
        "runs": len(rules) + len(full_runs),
        "source": "the class l2_partial_writes alone: the 54 runs made_rule names and the full pairs "
                  + ", ".join(os.path.basename(p) for p in full_runs)
                  + " (2026-11-27-trust's h1b/h1c, H100 GPU-d46fddff; 2026-11-28-edges' h1f/h1g, H100 GPU-dba57651), "
                  "by docs/results/2026-11-28-placement/l2_partial_writes.py"}
    with open(noise.MODEL, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"{noise.MODEL}: {CLASS}: floor {floor:.1%} ({set_by}), board to board {max(floor, floor_across):.1%}, "
          f"run-to-run deviation {entry['repeat_sigma']:.2%}, from {len(same)} results in pairs of one board")


if __name__ == "__main__":
    main(sys.argv[1:])
