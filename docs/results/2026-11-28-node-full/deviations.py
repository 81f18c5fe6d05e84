#!/usr/bin/env python3
"""Writes two run-to-run deviations of the stated precision into analysis/cards/noise_model.json, from the 54 rule
runs the model's other rule floors came from (made_rule), each ordered pair of runs of one board (or one node), one
preset and one code:
- held_clock_sigma_by_gpu (noise.HELD_CLOCK_SIGMA), per SKU, from the runs of a GPU alone: over the results the held
  clock moves (sm_time, or read in time where the class counts SM clocks) of rows whose clock the power manager held
  (noise.clock_held);
- node_repeat_sigma (noise.NODE_SIGMA), per class, from the runs of a node (every GPU at once), the rule runs' and
  those named: where its node pairs need more than the class's deviation of a GPU alone.
Each is the least deviation that leaves at most 5% of those repeated values outside the other run's stated interval.
Each node named on the command line (its runs, comma-separated) is judged first by the deviations the other nodes
give (leave one node out). Other entries stay as they are. Run from the repository's root:

    deviations.py [--show] [NODE_RUN.json,NODE_RUN.json,... ...]      (--show: the model unchanged)
"""
import collections
import itertools
import json
import math
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "docs", "results", "2026-11-28-edges"))
from analysis.cards import noise  # noqa: E402
from analysis.comparing import comparison  # noqa: E402
from analysis.model import cli  # noqa: E402
from analysis.tables import make_noise, run_pairs  # noqa: E402
from rule_rows import rule_runs  # noqa: E402


def results(path):
    """(group, node or not, {(GPU, row key, quantity): (value, row, quantity, context, class)}) of a run."""
    report = cli.load(path)
    devices = report.devices()
    found = {}
    for gpu, part in devices:
        for row in comparison.own_rows(part):
            if not row.ok or row.stop not in ("target", "cap"):
                continue
            for quantity in row.results:
                value = row.value("real_time") if quantity == "time" else row.value(quantity)
                cls = noise.class_of(row, quantity, part.context)
                if value and cls and cls not in noise.NOT_JUDGED and row.half_width(quantity) is not None:
                    found[(gpu, row.key, quantity)] = (value, row, quantity, part.context, cls)
    group = (tuple(part.context.get("gpu_uuid") for _, part in devices), devices[0][1].context.get("gpubench_preset"),
             report.context.get("gpubench_source_version"))
    return group, len(devices) > 1, found


def ordered_pairs(paths):
    """{(group, node or not): [(change, row, quantity, context, class)]}: every result of each ordered pair of runs of a
    group (one board or one node, one preset, one code)."""
    groups = collections.defaultdict(list)
    for path in paths:
        group, node, found = results(path)
        groups[(group, node)].append(found)
    pairs = {}
    for key, runs in groups.items():
        pairs[key] = [(abs(b[k][0] / value - 1), row, quantity, context, cls)
                      for a, b in itertools.permutations(runs, 2)
                      for k, (value, row, quantity, context, cls) in a.items() if k in b]
    return pairs


def outside(model, pairs):
    return sum(change > noise.stated_of_row(model, row, quantity, context)
               for change, row, quantity, context in pairs) / max(len(pairs), 1)


def least_sigma(model, key, name, pairs, share=make_noise.HONEST_SHARE):
    """The least deviation model[key][name] that leaves at most `share` of `pairs` outside."""
    trial = json.loads(json.dumps(model))
    def share_at(sigma):
        trial[key] = {name: sigma}
        return outside(trial, pairs)
    return math.ceil(run_pairs.least_within(share_at, share, 0.1, 30) * 1e5) / 1e5  # up: the share it gives holds


def by_class(pairs):
    found = collections.defaultdict(list)
    for change, row, quantity, context, cls in pairs:
        found[cls].append((change, row, quantity, context))
    return found


def node_sigmas(model, groups):
    """{class: deviation} from the node pairs of `groups` ([[pair]]), where a class needs one."""
    found = {}
    for cls, selected in sorted(by_class([p for pairs in groups for p in pairs]).items()):
        sigma = least_sigma(model, noise.NODE_SIGMA, cls, selected)
        if sigma:
            found[cls] = sigma
    return found


def main(show, node_runs):
    with open(noise.MODEL) as f:
        model = json.load(f)
    model.pop(noise.HELD_CLOCK_SIGMA, None)
    model.pop(noise.NODE_SIGMA, None)
    model.pop("made_held_clock", None)  # its first writer's (held_clock.py, now this)
    rules = ordered_pairs(rule_runs())
    held = collections.defaultdict(list)
    for (_, node), pairs in rules.items():
        for change, row, quantity, context, cls in ([] if node else pairs):
            if noise.clock_held(row) and (cls == "sm_time" or noise.moves_with_the_sm_clock(cls, quantity)):
                held[context.get("gpu_name")].append((change, row, quantity, context))
    found = {noise.HELD_CLOCK_SIGMA: {}, noise.NODE_SIGMA: {}}
    for name, selected in sorted(held.items()):
        found[noise.HELD_CLOCK_SIGMA][name] = sigma = least_sigma(model, noise.HELD_CLOCK_SIGMA, name, selected)
        print(f"held clock, {name}: {len(selected)} results in pairs: outside {outside(model, selected):.1%} as the "
              f"class states, {outside(dict(model, **{noise.HELD_CLOCK_SIGMA: {name: sigma}}), selected):.1%} at "
              f"{sigma:.2%}")
    model[noise.HELD_CLOCK_SIGMA] = found[noise.HELD_CLOCK_SIGMA]  # a node's held rows state it too
    nodes = [pairs for (_, node), pairs in rules.items() if node]
    extra = [pairs for paths in node_runs for (_, node), pairs in ordered_pairs(paths).items() if node]
    # Each node named on the command line judged by the deviations the others (and the rule runs' nodes) give.
    for i, (paths, pairs) in enumerate(zip(node_runs, extra)):
        others = node_sigmas(model, nodes + extra[:i] + extra[i + 1:])
        for cls, selected in sorted(by_class(pairs).items()):
            judged = dict(model, **{noise.NODE_SIGMA: others})
            print(f"node {os.path.basename(paths[0])}.., {cls}: outside {outside(model, selected):.1%} as the class "
                  f"states, {outside(judged, selected):.1%} by the other nodes' ({others.get(cls, 0):.3%}) "
                  f"of {len(selected)}")
    found[noise.NODE_SIGMA] = node_sigmas(model, nodes + extra)
    print(f"node deviations from {len(nodes) + len(extra)} nodes: {found[noise.NODE_SIGMA]}")
    if show:
        return
    model.update(found)
    model["made_deviations"] = {"runs": len(rule_runs()) + sum(len(paths) for paths in node_runs),
                                "source": "the runs made_rule names and the node runs "
                                + "; ".join(",".join(os.path.basename(p) for p in paths) for paths in node_runs)
                                + ", by docs/results/2026-11-28-node-full/deviations.py"}
    with open(noise.MODEL, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"{noise.MODEL}: {found}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main("--show" in args, [a.split(",") for a in args if a != "--show"])
