#!/usr/bin/env python3
"""Writes the held clock's run-to-run deviation (noise.HELD_CLOCK_SIGMA) into analysis/cards/noise_model.json, per
SKU, from the 54 rule runs the model's other rule floors came from (made_rule): the runs of one board alone, one
preset and one code, each ordered pair of them. For each SKU, the least deviation that leaves at most 5% of the
repeated values of results the held clock moves (sm_time, or read in time where the class counts SM clocks) of rows
whose clock the power manager held (noise.clock_held) outside the other run's stated interval. Other entries stay as
they are. Run from the repository's root:  held_clock.py [--show]   (--show: the shares, the model unchanged)
"""
import collections
import itertools
import json
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-edges"))
from analysis.cards import noise  # noqa: E402
from analysis.comparing import comparison  # noqa: E402
from analysis.model import cli  # noqa: E402
from analysis.tables import make_noise  # noqa: E402
from rule_rows import rule_runs  # noqa: E402


def held_results(path):
    """(board group, {(row key, quantity): (value, row, quantity, context)}) of a run of one GPU alone; None for a node's."""
    report = cli.load(path)
    devices = report.devices()
    if len(devices) != 1:
        return None
    _, part = devices[0]
    c = part.context
    found = {}
    for row in comparison.own_rows(part):
        if not row.ok or row.stop not in ("target", "cap") or not noise.clock_held(row):
            continue
        for quantity in row.results:
            cls = noise.class_of(row, quantity, c)
            if cls != "sm_time" and not noise.moves_with_the_sm_clock(cls, quantity):
                continue
            value = row.value("real_time") if quantity == "time" else row.value(quantity)
            if value is not None and row.half_width(quantity) is not None:
                found[(row.key, quantity)] = (value, row, quantity, c)
    key = (c.get("gpu_uuid"), c.get("gpu_name"), c.get("gpubench_preset"), report.context.get("gpubench_source_version"))
    return key, found


def ordered_pairs():
    """{SKU: [(change, before's result, after's value)]}: every held result of each ordered pair of runs of a group."""
    groups = collections.defaultdict(list)
    for path in rule_runs():
        found = held_results(path)
        if found:
            groups[found[0]].append(found[1])
    pairs = collections.defaultdict(list)
    for (_, name, _, _), runs in groups.items():
        for a, b in itertools.permutations(runs, 2):
            for key, (value, row, quantity, context) in a.items():
                if key in b:
                    pairs[name].append((abs(b[key][0] / value - 1), row, quantity, context))
    return pairs


def outside(model, pairs):
    return sum(change > noise.stated_of_row(model, row, quantity, context)
               for change, row, quantity, context in pairs) / max(len(pairs), 1)


def least_sigma(model, name, pairs, share=make_noise.HONEST_SHARE):
    trial = json.loads(json.dumps(model))
    def share_at(sigma):
        trial[noise.HELD_CLOCK_SIGMA] = {name: sigma}
        return outside(trial, pairs)
    low, high = 0.0, 0.1
    if share_at(low) <= share:
        return 0.0
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (low, mid) if share_at(mid) <= share else (mid, high)
    return round(high, 5)


def main(show):
    with open(noise.MODEL) as f:
        model = json.load(f)
    model.pop(noise.HELD_CLOCK_SIGMA, None)
    found = {}
    for name, pairs in sorted(ordered_pairs().items()):
        found[name] = least_sigma(model, name, pairs)
        before = outside(model, pairs)
        model_after = dict(model, **{noise.HELD_CLOCK_SIGMA: {name: found[name]}})
        print(f"{name}: {len(pairs)} held results in pairs: outside {before:.1%} without, "
              f"{outside(model_after, pairs):.1%} with a held clock's deviation of {found[name]:.2%}")
    if show:
        return
    model[noise.HELD_CLOCK_SIGMA] = found
    model["made_held_clock"] = {"runs": len(rule_runs()), "source": "the runs made_rule names, each board alone, by "
                                "docs/results/2026-11-28-node-full/held_clock.py"}
    with open(noise.MODEL, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"{noise.MODEL}: {noise.HELD_CLOCK_SIGMA} {found}")


if __name__ == "__main__":
    main("--show" in sys.argv[1:])
