#!/usr/bin/env python3
"""compare.py's noise model from runs of identical code: for every class of measurement (analysis/cards/noise.py), the
floor run to run on one board and the floor board to board, and the counters that stayed fixed; written into
analysis/cards/noise_model.json.

    make_noise.py --source "what the runs were" RUN.json ... [--out FILE]

Every two runs of one GPU name, preset and code are a pair: of one board (gpu_uuid) or of two. A run's code is
its gpubench_source_version (--same-code A=B names two versions whose measurements are the same), or for runs
from before that field the folder it lies in. For each pair, each row both measured and each result its family
declares a class for, the change |after / before - 1| against K x the larger own spread of the two rows: a class's floor in a scope is the least that calls none of its pairs slower or
faster (half the largest change beyond 2 K x its spread), times --margin, at least --minimum. A counter the
catalog calls fixed is proven fixed for a family when it moved by at most --fixed-tolerance in every pair, on
runs of at least --min-skus GPU names.
"""
import argparse
import itertools
import sys
import os

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from analysis.cards import noise  # noqa: E402
from analysis.comparing.comparison import names_another_gpu  # noqa: E402
from analysis.model import archive, cli  # noqa: E402
from analysis.tables.run_pairs import at_equal_clock, clock_steps, least_within, parts_of, rule_pairs  # noqa: E402


def changes(parts):
    """({class: {scope: [(change, spread, row quantity)]}}, {(family, counter): [change]}, {(family, counter):
    {gpu names}}, {scope: pairs})."""
    by_class, fixed_moves, fixed_seen, pairs = {}, {}, {}, {noise.SAME_BOARD: 0, noise.CROSS_BOARD: 0}
    for b, a in itertools.combinations(parts, 2):
        if b[2] != a[2] or b[3] != a[3] or b[6] != a[6]:
            continue  # pairs of one GPU name, preset and code only
        where = noise.scope(b[1], a[1])
        pairs[where] += 1
        for name, before in b[4].items():
            after = a[4].get(name)
            if after is None:
                continue
            row = before.rows[0]
            if where != noise.SAME_BOARD and names_another_gpu(row):
                continue  # a row naming another GPU by its index is of a pair of boards: no twin on other boards
            for q in before.results:
                if q not in before.samples or q not in after.samples:
                    continue
                cls = noise.class_of(row, q, b[8])
                bm, am = before.median(q), after.median(q)
                if cls is None or not bm:
                    continue
                spread = max(before.spread(q), after.spread(q))
                by_class.setdefault(cls, {}).setdefault(where, []).append(
                    (abs(at_equal_clock(before, after, q, before.results[q])), spread, f"{name} {q}"))
            for q in b[5]:
                if q in before.results or q not in before.samples or q not in after.samples:
                    continue
                bm, am = before.median(q), after.median(q)
                change = abs(am / bm - 1) if bm else (0.0 if am == bm else 1.0)
                fixed_moves.setdefault((row.family, q), []).append(change)
                fixed_seen.setdefault((row.family, q), set()).add(b[2])
    return by_class, fixed_moves, fixed_seen, pairs


def make_model(paths, source, factor=2.0, margin=2.0, minimum=0.005, fixed_tolerance=0.005, min_skus=2,
               same_code=None):
    for flag, value in (("--k", factor), ("--margin", margin), ("--minimum", minimum),
                        ("--fixed-tolerance", fixed_tolerance)):
        if not value > 0:
            raise cli.UsageError(f"{flag} must be positive, got {value}")
    parts = parts_of(paths, same_code)
    names = sorted({p[2] or "(no GPU)" for p in parts})
    if len(names) < min_skus:
        raise cli.UsageError(f"the runs come from {len(names)} GPU name(s) ({', '.join(names)}): a noise model that "
                             f"holds on any GPU needs runs of at least {min_skus} (--min-skus)")
    by_class, fixed_moves, fixed_seen, pairs = changes(parts)
    if not pairs[noise.SAME_BOARD] or not pairs[noise.CROSS_BOARD]:
        raise cli.UsageError(f"{pairs[noise.SAME_BOARD]} pairs of one board and {pairs[noise.CROSS_BOARD]} of two: "
                             "the model needs both (run twice on a board, and on several boards)")
    classes = {}
    for cls in sorted(by_class):
        entry = {"meaning": noise.CLASSES[cls]}
        for where in (noise.SAME_BOARD, noise.CROSS_BOARD):
            found = by_class[cls].get(where, [])
            if not found:
                continue
            beyond = [c for c in found if c[0] > 2 * factor * c[1]]
            worst = max(beyond, default=None)
            needed = worst[0] / 2 if worst else 0.0
            entry[where] = round(max(minimum, margin * needed), 4)
            entry[f"{where}_results"] = len(found)
            entry[f"{where}_largest"] = round(max(c[0] for c in found), 4)
            if worst:
                entry[f"{where}_set_by"] = worst[2]
        if noise.SAME_BOARD not in entry and noise.CROSS_BOARD in entry:
            entry[noise.SAME_BOARD] = entry[noise.CROSS_BOARD]  # no pair of one board: the wider floor
        if noise.CROSS_BOARD in entry:  # two boards differ by their runs' noise at least
            entry[noise.CROSS_BOARD] = max(entry[noise.CROSS_BOARD], entry[noise.SAME_BOARD])
        if cls in noise.NOT_JUDGED:
            entry["judged"] = False
        classes[cls] = entry
    fixed = {}
    for (family, counter), moves in sorted(fixed_moves.items()):
        if max(moves) <= fixed_tolerance and len(fixed_seen[(family, counter)]) >= min_skus:
            fixed.setdefault(family, []).append(counter)
    boards = sorted({p[1] for p in parts})
    return {"version": 1, "about": "compare.py's noise by class of measurement and scope (analysis/cards/noise.py); made "
                                   "by make_noise.py", "own_spread_factor": factor, "fixed_tolerance": fixed_tolerance,
            "classes": classes, "fixed": fixed,
            "made": {"runs": len(paths), "gpus": len(parts), "boards": len(boards), "gpu_names": names,
                     "pairs": pairs, "margin": margin, "minimum": minimum, "source": source}}


HONEST_SHARE = 0.05  # of repeated values outside another run's stated 95% interval


def honest_sigma(pairs, share=HONEST_SHARE):
    """The least run-to-run deviation for which at most `share` of the values of each pair fall outside the other
    run's stated interval (noise.stated_half_width), both ways."""
    def outside(sigma):
        model = {"classes": {"c": {"repeat_sigma": sigma}}}
        missed = sum((change > noise.stated_half_width(model, "c", wb)) + (change > noise.stated_half_width(model, "c", wa))
                     for change, _, _, wb, wa, *_ in pairs)
        return missed / (2 * len(pairs))
    return least_within(outside, share, 0.5, 40)


def add_rule(model, paths, source, margin, minimum, same_code=None, fixed_paths=()):
    """The model with each class's floor run to run for runs of the stopping rule (`same_board_rule`) and its
    run-to-run deviation for the stated precision (`repeat_sigma`), from pairs of rule runs of one board.
    `fixed_paths`: runs of fixed effort, whose pairs only widen the results' floors (`widened`)."""
    parts, fixed_parts = parts_of(paths, same_code), parts_of(fixed_paths, same_code)
    by_class = rule_pairs(parts)
    if not by_class:
        raise cli.UsageError("no pair of runs of one board measured under the stopping rule (--gpubench_precision)")
    own_floors, widths, cross_floors, row_sigmas = {}, {}, {}, {}
    across = rule_pairs(parts, noise.CROSS_BOARD)
    fixed_same, fixed_across = (rule_pairs(fixed_parts, where, by_rule=False)
                                  for where in (noise.SAME_BOARD, noise.CROSS_BOARD))
    for cls, pairs in sorted(by_class.items()):
        for _, _, _, wb, wa, name, *_ in pairs:
            if max(wb, wa) > noise.KNOWN_WIDTH_LEAST:
                widths[name] = round(max(widths.get(name, 0.0), wb, wa), 4)
        entry = model["classes"].setdefault(cls, {"meaning": noise.CLASSES[cls]})
        for key in [k for k in entry if k.startswith(f"{noise.SAME_BOARD}_rule")]:
            del entry[key]
        floor, exceptions, set_by = class_and_row_floors(pairs, margin, minimum, cls not in noise.PLACED)
        widened(exceptions, floor, fixed_same.get(cls, []), margin)
        entry[f"{noise.SAME_BOARD}_rule"] = floor
        entry[f"{noise.SAME_BOARD}_rule_results"] = len(pairs)
        if set_by:
            entry[f"{noise.SAME_BOARD}_rule_set_by"] = set_by
        own_floors.update(exceptions)
        if across.get(cls):
            # Boards of one SKU differ by more than a board's runs: their own floors, from pairs of two boards.
            for key in [k for k in entry if k.startswith(f"{noise.CROSS_BOARD}_rule")]:
                del entry[key]
            floor_x, exceptions_x, set_by_x = class_and_row_floors(across[cls], margin, minimum, cls not in noise.PLACED)
            widened(exceptions_x, max(floor_x, floor), fixed_across.get(cls, []), margin)
            entry[f"{noise.CROSS_BOARD}_rule"] = max(floor_x, floor)
            entry[f"{noise.CROSS_BOARD}_rule_results"] = len(across[cls])
            if set_by_x:
                entry[f"{noise.CROSS_BOARD}_rule_set_by"] = set_by_x
            cross_floors.update(exceptions_x)
        # The stated precision is a repeat's under the same conditions (ISO 5725's repeatability): its deviations come
        # from pairs of runs of the GPU alone; a node's runs (its GPUs at once) widen compare's floors only.
        repeats = [pair for pair in pairs if pair[7]] or pairs
        # A result that needed its own floor moves more than its class: it states its own deviation where its pairs
        # need one above the class's. The class's stays calibrated on every result, those included: calibrated on the
        # others alone, a board left out of the calibration had 7-11% of its values outside, against 2-5% so.
        by_result = {}
        for pair in repeats:
            if pair[5] in exceptions and pair[6]:
                by_result.setdefault((pair[6], pair[5]), []).append(pair)
        own_sigma = {key: honest_sigma(found) for key, found in by_result.items()
                     if len(found) >= ROW_SIGMA_LEAST_PAIRS}
        entry["repeat_sigma"] = round(honest_sigma(repeats), 5)
        # Boards of one SKU wander alike (an H100's boost clock moves 1.5% from run to run, an H200's stays):
        # each SKU with pairs enough gets its own deviation; a SKU no run has seen gets the pooled one.
        by_gpu = {}
        for pair in repeats:
            by_gpu.setdefault(pair[6], []).append(pair)
        entry["repeat_sigma_by_gpu"] = {gpu: round(honest_sigma(found), 5) for gpu, found in sorted(by_gpu.items())
                                        if gpu and len(found) >= SKU_SIGMA_LEAST_PAIRS}
        for (gpu, name), sigma in sorted(own_sigma.items()):
            if sigma > entry["repeat_sigma_by_gpu"].get(gpu, entry["repeat_sigma"]):
                row_sigmas.setdefault(gpu, {})[name] = round(sigma, 5)
    model[noise.ROW_FLOORS] = dict(sorted(own_floors.items()))
    model[noise.ROW_WIDTHS] = dict(sorted(widths.items()))
    model[noise.ROW_FLOORS_CROSS] = dict(sorted(cross_floors.items()))
    model[noise.ROW_SIGMA] = {gpu: dict(sorted(found.items())) for gpu, found in sorted(row_sigmas.items())}
    model[noise.RULE_ROWS] = sorted(set(model.get(noise.RULE_ROWS, [])) | set(rule_rows(by_class)))
    model["made_rule"] = {"runs": len(paths), "fixed_runs": len(fixed_paths), "margin": margin, "minimum": minimum, "source": source,
                          "class_quantile": CLASS_QUANTILE}
    return model


SKU_SIGMA_LEAST_PAIRS = 30  # of a class's results on one SKU, for a deviation of that SKU's own
ROW_SIGMA_LEAST_PAIRS = 3  # of one result on one SKU, for a deviation of its own
CLASS_QUANTILE = 0.75  # of a class's results, the share its floor covers; the rest get floors of their own
# Pairs and boards for a floor below the class's (an L1 read needs 0.25% over 96 pairs, not an atomic's 5.1%):
OWN_FLOOR_LEAST_PAIRS = 30
OWN_FLOOR_LEAST_BOARDS = 4


def rule_rows(by_class):
    """The rows (names without /gpu:N) the rule pairs measured: any other row's results get their class's widest floor
    (noise.RULE_ROWS)."""
    return sorted({pair[5].rsplit(" ", 1)[0] for pairs in by_class.values() for pair in pairs})


def widened(floors, class_floor, fixed_pairs, margin):
    """`floors` ({"row quantity": own floor}) widened where a pair of fixed-effort runs moved a result further: such
    pairs only widen (their longer runs are quieter, and a result at two levels shows them in any run)."""
    for change, _, _, _, _, name, *_ in fixed_pairs:
        if round(margin * change, 4) > floors.get(name, class_floor):
            floors[name] = round(margin * change, 4)


def class_and_row_floors(pairs, margin, minimum, below_class=True):
    """(class floor, {"row quantity": own floor}, the result that sets the class floor) from pairs of rule runs.
    Each result needs the largest change beyond its two intervals over its pairs (compare never widens a floor by
    a row's own spread: a noisy row is a finding). One result at two levels (a bimodal L2 row) must not set the
    floor of its class's stable rows: the class floor covers CLASS_QUANTILE of its results, each result beyond it
    keeps its own, and where `below_class` one seen often enough (OWN_FLOOR_LEAST_PAIRS, _BOARDS) too."""
    needed, boards = {}, {}
    for change, combined, _, _, _, name, _, _, board, *_ in pairs:
        needed[name] = max(needed.get(name, 0.0), max(0.0, change - combined))
        boards.setdefault(name, []).append(board)
    ranked = sorted(needed.items(), key=lambda item: item[1])
    at = ranked[min(len(ranked) - 1, int(CLASS_QUANTILE * len(ranked)))]
    floor = round(max(minimum, margin * at[1]), 4)
    known = {name for name, seen in boards.items()
             if len(seen) >= OWN_FLOOR_LEAST_PAIRS and len(set(seen)) >= OWN_FLOOR_LEAST_BOARDS}
    exceptions = {name: round(max(minimum, margin * excess), 4) for name, excess in ranked}
    exceptions = {name: own for name, own in exceptions.items()
                  if own > floor or (below_class and name in known and own < floor)}
    return floor, exceptions, (at[0] if at[1] > 0 else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--source", required=True, help="what the runs were (devices, boards, commands, dates)")
    parser.add_argument("--out", default=noise.MODEL)
    parser.add_argument("--k", type=float, default=2.0, help="times a row's own spread that is its own noise")
    parser.add_argument("--margin", type=float, default=2.0,
                        help="times the least floor the runs need: the pair that sets a floor may be left out")
    parser.add_argument("--minimum", type=float, default=0.005)
    parser.add_argument("--fixed-tolerance", type=float, default=0.005)
    parser.add_argument("--min-skus", type=int, default=2)
    parser.add_argument("--rule", action="store_true",
                        help="the runs were measured under the stopping rule: add their floors and run-to-run "
                             "deviations to the model at --out (which stays otherwise as it is)")
    parser.add_argument("--fixed-runs", nargs="*", default=[], metavar="RUN",
                        help="with --rule: runs of fixed effort whose pairs widen the floors too")
    parser.add_argument("--clock", action="store_true",
                        help="add only the widest step of each SKU's SM clock between two runs of a board (from the "
                             "runs' measured clocks) to the model at --out")
    parser.add_argument("--same-code", action="append", default=[], metavar="A=B",
                        help="source versions A and B measure alike (their diff touches no measurement)")
    args = parser.parse_args()
    args.runs = archive.expand(args.runs)
    same = {}
    for pair in args.same_code:
        a, eq, b = pair.partition("=")
        if not eq or not a or not b:
            parser.error(f"--same-code {pair}: give A=B")
        same[a] = b
    if args.clock:
        model = noise.load(args.out)
        model[noise.SM_CLOCK_STEP] = clock_steps(args.runs)
        model["made_clock"] = {"runs": len(args.runs), "source": args.source}
        cli.write_json(args.out, model, "noise model")
        print(f"{args.out}: the SM clock's widest step between runs {model[noise.SM_CLOCK_STEP]} from {len(args.runs)} runs",
              file=sys.stderr)
        return 0
    if args.rule:
        model = add_rule(noise.load(args.out), args.runs, args.source, args.margin, args.minimum, same,
                         archive.expand(args.fixed_runs))
        cli.write_json(args.out, model, "noise model")
        print(f"{args.out}: rule floors and run-to-run deviations of {len(model['classes'])} classes from "
              f"{len(args.runs)} runs", file=sys.stderr)
        return 0
    model = make_model(args.runs, args.source, args.k, args.margin, args.minimum, args.fixed_tolerance, args.min_skus,
                       same)
    cli.write_json(args.out, model, "noise model")
    print(f"{args.out}: {len(model['classes'])} classes from {model['made']['pairs']} pairs on "
          f"{model['made']['boards']} boards of {', '.join(model['made']['gpu_names'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
