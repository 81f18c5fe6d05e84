#!/usr/bin/env python3
"""Writes preset_repeat_sigma (noise.PRESET_SIGMA) into analysis/cards/noise_model.json: per preset and class, the
least run-to-run deviation that leaves at most 5% of the preset's repeated values outside the other run's stated
interval, where the class's own leaves more. It is made from pairs of one board, one preset and one code (each board's
pair weighs alike), each board judged first by the deviation the others give (leave one out); runs named after
--judge (a pair each, comma-separated) are judged by it and take no part in making it. A link copy of one size and
direction (to any peer) seen in 3 pairs or more states its own where its class's leaves it more than 5% outside. Run from the repository's root,
after deviations.py (docs/results/2026-11-28-held-out/README.md, "Making the model again"):

    preset_deviations.py [--show] BOARD_RUN.json,BOARD_RUN.json ... [--judge RUN.json,RUN.json ...]
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-node-full"))
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-edges"))
from analysis.cards import noise  # noqa: E402
from deviations import command_line, least_sigma, ordered_pairs, outside, write_model  # noqa: E402
from analysis.tables import make_noise  # noqa: E402

OWN_RESULTS = ("link_bandwidth",)  # classes whose results, seen in pairs enough, state their own deviation


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
    # A link copy's run-to-run spread falls tenfold from 256 MiB to 8 GiB (x4j, x4n, x2c: 2026-11-28-two-gpu-full-pair):
    # one deviation for the class cannot state both. A copy seen in pairs enough states its own, where wider.
    by_result = collections.defaultdict(list)
    for pairs in groups:
        for change, row, quantity, context, cls in pairs:
            if cls in OWN_RESULTS:
                result = re.sub(r"/peer:\d+", "", noise.result_name(row.key, quantity))  # a copy to any peer
                by_result[(context.get("gpubench_preset"), cls, result)].append((change, row, quantity, context))
    for (preset, cls, result), selected in sorted(by_result.items(), key=lambda item: str(item[0])):
        if len(selected) >= 2 * make_noise.ROW_SIGMA_LEAST_PAIRS:  # ordered pairs: each pair both ways
            sigma = least_sigma(model, noise.PRESET_SIGMA, result, selected, sku=preset)
            if sigma > found[preset].get(cls, 0.0):
                found[preset][result] = sigma
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
        "source": "the full pairs " + "; ".join(",".join(os.path.basename(p) for p in paths) for paths in board_runs)
        + ", by docs/results/2026-11-28-full-node-pair/preset_deviations.py"}
    write_model(model, found)


if __name__ == "__main__":
    main(*command_line("--judge", least_runs=2))  # a pair at least: deviations are read between runs
