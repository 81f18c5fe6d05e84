#!/usr/bin/env python3
"""Each board left out, per family: the preset deviations made without it (preset_deviations.preset_sigmas), and its
own pairs judged by the classes' deviations alone, then with the others' own (link copies, families). Run from the
repository's root with preset_deviations.py's arguments; the 4-GPU and H100 full pairs are not judged (time).

    family_loo.py BOARD_RUN.json,BOARD_RUN.json ...
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-full-node-pair"))
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-node-full"))
from analysis.cards import noise  # noqa: E402
import preset_deviations  # noqa: E402
from deviations import command_line, ordered_pairs  # noqa: E402
from analysis.model.row import result_family  # noqa: E402

NOT_JUDGED = ("x4j", "x4n", "h1b", "h1f", "h1m")


def main(board_runs):
    with open(noise.MODEL) as f:
        model = json.load(f)
    model.pop(noise.PRESET_SIGMA, None)
    groups = [[p for pairs in ordered_pairs(paths).values() for p in pairs] for paths in board_runs]
    for i, paths in enumerate(board_runs):
        if any(name in paths[0] for name in NOT_JUDGED):
            continue
        others = preset_deviations.preset_sigmas(model, groups[:i] + groups[i + 1:])
        classes_only = {p: {k: v for k, v in c.items() if k in model["classes"]} for p, c in others.items()}
        for label, sigmas in (("classes only", classes_only), ("with the others' own", others)):
            judged = dict(model, **{noise.PRESET_SIGMA: sigmas})
            outside, total = collections.Counter(), collections.Counter()
            for change, row, quantity, context, cls in groups[i]:
                family = f"{result_family(noise.result_name(row.key, quantity))} {cls}"
                total[family] += 1
                outside[family] += change > noise.stated_of_row(judged, row, quantity, context)
            worst = sorted((outside[f] / total[f], f) for f in total if total[f] >= 20)[-4:][::-1]
            print(f"{os.path.basename(paths[0])} left out, {label}: {sum(outside.values())} of "
                  f"{sum(total.values())} outside; " + "; ".join(f"{f} {r:.0%} of {total[f]}" for r, f in worst))


if __name__ == "__main__":
    main(command_line("--judge", least_runs=2)[1])  # its runs checked as preset_deviations.py checks them
