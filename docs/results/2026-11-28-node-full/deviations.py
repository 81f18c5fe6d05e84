#!/usr/bin/env python3
"""Writes two run-to-run deviations of the stated precision into analysis/cards/noise_model.json, from the 54 rule
runs the model's other rule floors came from (made_rule), each ordered pair of runs of one board (or one node), one
preset and one code:
- held_clock_sigma_by_gpu (noise.HELD_CLOCK_SIGMA), per SKU, from the runs of a GPU alone: over the results the held
  clock moves (sm_time, or read in time where the class counts SM clocks) of rows whose clock the power manager held
  (noise.clock_held);
- node_repeat_sigma (noise.NODE_SIGMA), per class, from the runs of a node (every GPU at once), the rule runs' and
  those named: where its node pairs need more than the class's deviation of a GPU alone.
- placed_repeat_sigma_by_gpu (noise.PLACED_SIGMA), per SKU and class whose results move with where pages or SMs land
  (noise.PLACED), from the rule runs of a GPU alone and the boards named after --boards (each board's runs of one
  preset, comma-separated, or a node's, its GPUs' pairs together): where those boards' pairs need more than the
  class's deviation on the SKU.
Each is the least deviation that leaves at most 5% of those repeated values outside the other run's stated interval.
Each node (or board) named on the command line (its runs, comma-separated) is judged first by the deviations the
other nodes (boards) give (leave one out). Other entries stay as they are. Run from the repository's root:

    deviations.py [--show] [NODE_RUN.json,... ...] [--boards BOARD_RUN.json,... ...]    (--show: the model unchanged)
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
    """The share of `pairs` outside their stated interval; a pair's fifth element, where given, is its weight."""
    weights = [pair[4] if len(pair) > 4 else 1.0 for pair in pairs]
    return sum(w for (change, row, quantity, context, *_), w in zip(pairs, weights)
               if change > noise.stated_of_row(model, row, quantity, context)) / max(sum(weights), 1e-12)


def least_sigma(model, key, name, pairs, share=make_noise.HONEST_SHARE, sku=None):
    """The least deviation model[key][name] (model[key][sku][name] given a SKU) that leaves at most `share` of `pairs`
    outside."""
    trial = json.loads(json.dumps(model))
    def share_at(sigma):
        trial[key] = {sku: {name: sigma}} if sku else {name: sigma}
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


def by_sku_and_class(pairs):
    found = collections.defaultdict(list)
    for change, row, quantity, context, cls in pairs:
        if cls in noise.PLACED:
            found[(context.get("gpu_name"), cls)].append((change, row, quantity, context))
    return found


def placed_sigmas(model, groups):
    """{SKU: {class: deviation}} from the pairs of a GPU alone in `groups` ([[pair]]), where a placed class needs one.
    Each group (a board's runs of one preset) weighs alike: six check runs of one board give 30 ordered pairs, a full
    pair 2, and a quiet board's many pairs must not hide a board that moves."""
    weighed = collections.defaultdict(list)
    for pairs in groups:
        for key, selected in by_sku_and_class(pairs).items():
            weighed[key] += [(*pair, 1 / len(selected)) for pair in selected]
    found = collections.defaultdict(dict)
    for (sku, cls), selected in sorted(weighed.items()):
        sigma = least_sigma(model, noise.PLACED_SIGMA, cls, selected, sku=sku)
        if sigma:
            found[sku][cls] = sigma
    # A result at an edge that lands in one of two states, several percent apart, moves more than its class: with
    # pairs enough (make_noise's least for a row's own) it states its own deviation where wider than its class's.
    by_result = collections.defaultdict(list)
    for pairs in groups:
        for change, row, quantity, context, cls in pairs:
            if cls in noise.PLACED:
                by_result[(context.get("gpu_name"), cls, noise.result_name(row.key, quantity))].append(
                    (change, row, quantity, context))
    for (sku, cls, result), selected in sorted(by_result.items()):
        if len(selected) >= 2 * make_noise.ROW_SIGMA_LEAST_PAIRS:  # ordered pairs: each pair both ways
            sigma = least_sigma(model, noise.PLACED_SIGMA, result, selected, sku=sku)
            if sigma > found[sku].get(cls, 0.0):
                found[sku][result] = sigma
    return {sku: dict(sorted(sigmas.items())) for sku, sigmas in found.items() if sigmas}


def judge_left_out(model, key, fit, groups, named):
    """Each named node or board ([(paths, pairs)]) judged by the deviations (`fit`, at model[key]) that `groups` and the
    other named ones give."""
    placed = key == noise.PLACED_SIGMA
    for i, (paths, pairs) in enumerate(named):
        others = fit(model, groups + [p for j, (_, p) in enumerate(named) if j != i])
        judged = dict(model, **{key: others})
        split = by_sku_and_class(pairs) if placed else {(None, c): s for c, s in by_class(pairs).items()}
        for (sku, cls), selected in sorted(split.items(), key=lambda item: (str(item[0][0]), item[0][1])):
            sigma = others.get(sku, {}).get(cls, 0) if placed else others.get(cls, 0)
            print(f"{'board' if placed else 'node'} {os.path.basename(paths[0])}.., {cls}: outside "
                  f"{outside(model, selected):.1%} as the class states, {outside(judged, selected):.1%} by the other "
                  f"{'boards' if placed else 'nodes'}' ({sigma:.3%}) of {len(selected)}")


def main(show, node_runs, board_runs=()):
    with open(noise.MODEL) as f:
        model = json.load(f)
    model.pop(noise.HELD_CLOCK_SIGMA, None)
    model.pop(noise.NODE_SIGMA, None)
    model.pop(noise.PLACED_SIGMA, None)
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
    judge_left_out(model, noise.NODE_SIGMA, node_sigmas, nodes, list(zip(node_runs, extra)))
    found[noise.NODE_SIGMA] = node_sigmas(model, nodes + extra)
    print(f"node deviations from {len(nodes) + len(extra)} nodes: {found[noise.NODE_SIGMA]}")
    # The class's own deviation holds the rule runs' boards; the boards beyond them, each preset of each alike, say
    # whether the SKU needs more.
    # A node's GPU places its pages as a GPU alone does: a node's pair named here is a group of its SKU's boards.
    boards = [pairs for paths in board_runs for pairs in ordered_pairs(paths).values()]
    per_board = [[p for pairs in ordered_pairs(paths).values() for p in pairs] for paths in board_runs]
    judge_left_out(model, noise.PLACED_SIGMA, placed_sigmas, [], list(zip(board_runs, per_board)))
    found[noise.PLACED_SIGMA] = placed_sigmas(model, boards)
    print(f"placed deviations from {len(boards)} groups of {len(board_runs)} boards: {found[noise.PLACED_SIGMA]}")
    if show:
        return
    model.update(found)
    model["made_deviations"] = {"runs": len(rule_runs()) + sum(len(paths) for paths in (*node_runs, *board_runs)),
                                "source": "the runs made_rule names and the node runs "
                                + "; ".join(",".join(os.path.basename(p) for p in paths) for paths in node_runs)
                                + ("; the boards' runs " + "; ".join(",".join(os.path.basename(p) for p in paths)
                                                                       for paths in board_runs) if board_runs else "")
                                + ", by docs/results/2026-11-28-node-full/deviations.py"}
    write_model(model, found)


def write_model(model, found):
    with open(noise.MODEL, "w") as f:
        json.dump(model, f, indent=1)
        f.write("\n")
    print(f"{noise.MODEL}: {found}")


def command_line(flag, least_runs=1):
    """(--show given, [runs before `flag`], [runs after it]): each a comma-separated list of at least `least_runs`
    existing paths, and at least one before `flag`; otherwise one line and exit 1, the model untouched."""
    args = [a for a in sys.argv[1:] if a != "--show"]
    cut = args.index(flag) if flag in args else len(args)
    before, after = [a.split(",") for a in args[:cut]], [a.split(",") for a in args[cut + 1:]]
    name = os.path.basename(sys.argv[0])
    if not before:
        sys.exit(f"{name}: name the runs (RUN.json,RUN.json ...); see its docstring")
    for paths in before + after:
        if len(paths) < least_runs:
            sys.exit(f"{name}: {','.join(paths)}: give at least {least_runs} runs of one group, comma-separated")
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            sys.exit(f"{name}: {missing[0]}: no such file")
    return "--show" in sys.argv, before, after


if __name__ == "__main__":
    main(*command_line("--boards"))
