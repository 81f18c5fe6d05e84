#!/usr/bin/env python3
"""Writes a class of Normalize's partial-sector writes into analysis/cards/noise_model.json: l2_partial_writes (its
vectors held in the L2; full pairs of session 19's GPU-d46fddff and h1f/h1g's GPU-dba57651) or, with --class,
dram_partial_writes (its vectors spilling to DRAM: docs/results/2026-11-28-held-out). From the pairs of runs of
identical code that measured it: the 54 rule runs the model's other rule floors came from (made_rule), and the full
pairs of one board each named on the command line. Its floor, run to run and board to board, is the largest change any
of those pairs showed (no pair moved past it; board to board also between the full runs named); its run-to-run
deviation is the least that leaves at most 5% of their values outside each other's stated interval. Other classes
stay as they are. Run from the repository's root:

    l2_partial_writes.py [--class dram_partial_writes] FULL_BEFORE.json FULL_AFTER.json [FULL_BEFORE.json ...]
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

CLASSES = ("l2_partial_writes", "dram_partial_writes")
BOARDS = {"l2_partial_writes": " (2026-11-27-trust's h1b/h1c, H100 GPU-d46fddff; 2026-11-28-edges' h1f/h1g, H100 "
                               "GPU-dba57651), ",
          "dram_partial_writes": " (2026-11-27-trust's h1b/h1c, H100 GPU-d46fddff; 2026-11-28-edges' h1f/h1g, H100 "
                                 "GPU-dba57651; 2026-11-28-placement's h1m/h1n, H100 GPU-1caad74f), "}


def class_pairs(paths, where, cls):
    return make_noise.rule_pairs(make_noise.parts_of(paths, None), where).get(cls, [])


def largest(pairs):
    change, name = max(((pair[0], pair[5]) for pair in pairs), default=(0.0, None))
    return math.ceil(change * 200) / 200, name  # up to the next 0.5%


def main(full_runs, cls=CLASSES[0]):
    if len(full_runs) % 2:
        sys.exit("give the full runs in pairs of one board")
    rules = rule_runs()
    same = class_pairs(rules, noise.SAME_BOARD, cls)
    for i in range(0, len(full_runs), 2):
        same += class_pairs(full_runs[i:i + 2], noise.SAME_BOARD, cls)
    across = class_pairs(rules, noise.CROSS_BOARD, cls)
    if cls != CLASSES[0]:  # the rule runs hold none of its rows: boards apart are the full runs'
        across += class_pairs(full_runs, noise.CROSS_BOARD, cls)
    floor, set_by = largest(same)
    floor_across, set_by_across = largest(across)
    repeats = [pair for pair in same if pair[7]] or same
    entry = {"meaning": noise.CLASSES[cls],
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
    model["classes"][cls] = entry
    model[f"made_{cls}"] = {
        "runs": len(rules) + len(full_runs),
        "source": f"the class {cls} alone: the 54 runs made_rule names and the full pairs "
                  + ", ".join(os.path.basename(p) for p in full_runs) + BOARDS[cls]
                  + "by docs/results/2026-11-28-placement/l2_partial_writes.py"}
    with open(noise.MODEL, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"{noise.MODEL}: {cls}: floor {floor:.1%} ({set_by}), board to board {max(floor, floor_across):.1%}, "
          f"run-to-run deviation {entry['repeat_sigma']:.2%}, from {len(same)} results in pairs of one board")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--class"]:
        if len(args) < 2 or args[1] not in CLASSES:
            sys.exit(f"--class: one of {', '.join(CLASSES)}")
        main(args[2:], args[1])
    else:
        main(args)
