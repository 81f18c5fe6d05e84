#!/usr/bin/env python3
"""Writes preset_repeat_sigma (noise.PRESET_SIGMA) into analysis/cards/noise_model.json: per preset and class, the
least run-to-run deviation that leaves at most 5% of the preset's repeated values outside the other run's stated
interval, where the class's own leaves more. It is made from pairs of one board, one preset and one code (each board's
pair weighs alike), each board judged first by the deviation the others give (leave one out); runs named after
--judge (a pair each, comma-separated) are judged by it and take no part in making it. Within a class, a link copy
of one size and direction (to any peer) and a family's results (noise.preset_key), seen on 2 boards in 3 pairs or
more, state their own where the class's leaves them more than 5% outside. Any preset whose runs are given: the full
and the quick. Run from the repository's root, after deviations.py (docs/results/2026-11-28-held-out/README.md,
"Making the model again"):

    preset_deviations.py [--show] BOARD_RUN.json,BOARD_RUN.json ... [--judge RUN.json,RUN.json ...]
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-node-full"))
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-edges"))
from analysis.cards import noise  # noqa: E402
from deviations import command_line, least_sigma, ordered_pairs, outside, write_model  # noqa: E402
from analysis.tables import make_noise  # noqa: E402



def by_preset_and_class(groups):
    """{(preset, class): [(change, row, quantity, context, weight)]}: each group's (a board's pair) results weigh
    1 / its count in its class, so that a board with more rows of a class does not decide it alone."""
    found = collections.defaultdict(list)
    for pairs in groups:
        counted = collections.Counter((p[3].get("gpubench_preset"), p[4]) for p in pairs)
        for change, row, quantity, context, cls in pairs:
            key = (context.get("gpubench_preset"), cls)
            found[key].append((change, row, quantity, context, 1 / counted[key]))
    return found


def preset_sigmas(model, groups):
    """{preset: {class: deviation}} where the class's own deviation leaves more than 5% outside."""
    found = collections.defaultdict(dict)
    for (preset, cls), selected in sorted(by_preset_and_class(groups).items(), key=lambda item: str(item[0])):
        if outside(model, selected) <= 0.05:
            continue
        found[preset][cls] = least_sigma(model, noise.PRESET_SIGMA, cls, selected, sku=preset)  # {preset: {cls: ..}}
    # Within a class, what moves more than the class states a deviation of its own, where its pairs need one:
    # - a link copy of one size and direction, to any peer: its spread falls tenfold from 256 MiB to 8 GiB (x4j, x4n,
    #   x2c: 2026-11-28-two-gpu-full-pair);
    # - a family's results of the class: DSMEM bandwidth moved 0.2% at its 90th percentile where its class states
    #   0.05% (36-39% outside on all three H200 hosts).
    by_own = collections.defaultdict(list)
    for pairs in groups:
        counted = collections.Counter()
        keyed = [(noise.preset_key(noise.result_name(row.key, quantity), cls), change, row, quantity, context)
                 for change, row, quantity, context, cls in pairs]
        counted.update((context.get("gpubench_preset"), key) for key, *_, context in keyed)
        for key, change, row, quantity, context in keyed:
            by_own[(context.get("gpubench_preset"), key)].append(
                (change, row, quantity, context, 1 / counted[(context.get("gpubench_preset"), key)]))
    with_classes = dict(model, **{noise.PRESET_SIGMA: {p: dict(c) for p, c in found.items()}})
    for (preset, key), selected in sorted(by_own.items(), key=lambda item: str(item[0])):
        if len({pair[3].get("gpu_uuid") for pair in selected}) < 2 or len(selected) < 2 * make_noise.ROW_SIGMA_LEAST_PAIRS:
            continue  # seen on one board only, or in too few pairs
        if outside(with_classes, selected) > 0.05:
            found[preset][key] = least_sigma(model, noise.PRESET_SIGMA, key, selected, sku=preset)
    return dict(found)


def report(model, label, pairs):
    for (preset, cls), selected in sorted(by_preset_and_class([pairs]).items(), key=lambda item: str(item[0])):
        print(f"{label}, {preset} {cls}: outside {outside(model, selected):.1%} of {len(selected)}")


def main(show, board_runs, judged_runs):
    with open(noise.MODEL) as f:
        model = json.load(f)
    model.pop(noise.PRESET_SIGMA, None)
    model.pop("made_preset_deviations", None)
    groups = [[p for (_, node), pairs in ordered_pairs(paths).items() for p in pairs] for paths in board_runs]
    for i, paths in enumerate(board_runs):
        others = preset_sigmas(model, groups[:i] + groups[i + 1:])
        report(dict(model, **{noise.PRESET_SIGMA: others}), f"left out {os.path.basename(paths[0])}.. "
               f"(the others' {others})", groups[i])
    found = preset_sigmas(model, groups)
    print(f"preset deviations from {len(groups)} boards: {found}")
    for paths in judged_runs:
        pairs = [p for (_, node), pairs in ordered_pairs(paths).items() for p in pairs]
        report(model, f"judged {os.path.basename(paths[0])}.. as the classes state", pairs)
        report(dict(model, **{noise.PRESET_SIGMA: found}), f"judged {os.path.basename(paths[0])}.. with them", pairs)
    if show:
        return
    model[noise.PRESET_SIGMA] = found
    model["made_preset_deviations"] = {
        "runs": sum(len(paths) for paths in board_runs),
        "source": "the pairs of one board and preset " + "; ".join(",".join(os.path.basename(p) for p in paths) for paths in board_runs)
        + ", by docs/results/2026-11-28-full-node-pair/preset_deviations.py"}
    write_model(model, found)


if __name__ == "__main__":
    main(*command_line("--judge", least_runs=2))  # a pair at least: deviations are read between runs
