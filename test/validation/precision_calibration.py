#!/usr/bin/env python3
"""The stopping rule against fixed effort, and whether its stated precision is honest (docs/results/
2026-11-26-precision). From runs of one board:

    precision_calibration.py --fixed OLD_QUICK.json --new NEW_QUICK.json ... --repeats RUN.json ... [--noise FILE]
    precision_calibration.py --leave-one-board-out RUN.json ...   (rule runs of several boards)
    precision_calibration.py --repeats RUN.json ... --across OTHER_BOARD_RUN.json ... --fault PLANTED.json

1. Same answers: every result of a new run against the fixed-effort run of the same board, paired by row: within
   its stated precision or 1%, whichever is larger (the rest listed).
2. Honest precision: over the back-to-back runs (--repeats, identical code, one board), the share of results whose
   value falls outside another run's stated 95% interval, for every ordered pair of runs.
3. compare: every pair of the repeats judged with intervals (0 slower, faster, changed or noisier wanted), and
   planted changes: 2% on each result whose precision is 0.5% or better, 5% on every judged result.
4. Across boards: every run of one board against every run of another of its SKU; a planted fault (a busy SM)
   against each healthy run.
5. Leave one board out: 2 and 3 on each board's check runs, judged by floors and deviations made from the other
   boards' runs alone (a board no calibration has seen).
"""
import argparse
import copy
import itertools
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
from analysis import compare  # noqa: E402
from analysis.cards import noise  # noqa: E402
from analysis.model import archive  # noqa: E402
from analysis.model import report as report_model  # noqa: E402


def results(path, model=None):
    """{(row key, quantity): (value, half width or None, (SM clock, better))} of a run's finished GPU rows (host
    rows are the host class's, never judged). With `model`, the half width is the stated precision (the run's own
    interval and its class's run-to-run deviation, noise.stated_half_width); without, the run's own interval."""
    found = {}
    report = report_model.load(path)
    for row in report.all_rows:
        if not row.ok or compare.host_row(row):
            continue
        for quantity, better in row.results.items():
            value = row.value("real_time") if quantity == "time" else row.value(quantity)
            cls = noise.class_of(row, quantity, report.context)
            if value is not None and cls is not None and cls not in noise.NOT_JUDGED:
                width = row.half_width(quantity)
                if model is not None:
                    width = noise.stated_of_row(model, row, quantity, report.context)
                found[(row.key, quantity)] = (value, width, (row.value("sm_mhz"), better))
    return found


def same_answers(fixed, new, model):
    old, now = results(fixed), results(new, model)
    shared = [k for k in now if k in old and old[k][0]]
    outside = []
    for key in shared:
        value, width, (clock, better) = now[key]
        old_clock = old[key][2][0]
        change = value / old[key][0] - 1
        if clock and old_clock and not report_model.per_clock(key[1]) and abs(clock / old_clock - 1) > 0.005:
            # A time or rate moves with the SM clock (the fixed-effort run ran long enough to be power-capped):
            # compared at equal clock, as compare.py's "slower (clock)" does.
            ratio = clock / old_clock
            change = (value * ratio if better == "lower" else value / ratio) / old[key][0] - 1
        allowed = max(0.01, width or 0.0)
        if abs(change) > allowed:
            outside.append((key, change, width))
    return len(shared), outside


def honesty(paths, model=None):
    runs = [results(p, model) for p in paths]
    outside = total = 0
    by_width = {}
    for a, b in itertools.permutations(range(len(runs)), 2):
        for key, (value, width, _) in runs[a].items():
            if width is None or key not in runs[b]:
                continue
            other = runs[b][key][0]
            miss = abs(other - value) > abs(value) * width
            total += 1
            outside += miss
            band = "<=0.1%" if width <= 0.001 else "<=0.5%" if width <= 0.005 else ">0.5%"
            o, t = by_width.get(band, (0, 0))
            by_width[band] = (o + miss, t + 1)
    return outside, total, by_width


def judged(before, after, model):
    """compare.py's entries for two run dicts of one board (the run-to-run scope)."""
    sides = [compare.sides_of(report_model.from_dict(data).all_rows)[0] for data in (before, after)]
    return compare.compare_rows(*sides, model, noise.SAME_BOARD, fixed=report_model.from_dict(before).fixed_counters(),
                                context=before.get("context", {})), None


def planted(data, rule, model):
    """(a copy of a run whose results `rule(row, quantity, stated precision)` makes worse by a share (0.02: 2% slower,
    a time 2% longer or a rate 2% lower; None to leave), {(row key, quantity)} of the results it changed)."""
    out = copy.deepcopy(data)
    changed = set()
    context = data.get("context", {})
    for raw in out["benchmarks"]:
        row = report_model.Row(raw)
        if not row.ok:
            continue
        for quantity, better in row.results.items():
            if quantity == "time" or quantity not in raw:
                continue
            stated = noise.stated_of_row(model, row, quantity, context)
            share = rule(row, quantity, stated)
            if share is not None:
                raw[quantity] = raw[quantity] * (1 + share if better == "lower" else 1 - share)
                changed.add((row.key, quantity))
    return out, changed


def repeatability(repeats, model, out=print):
    """Honesty of the stated precision, compare of identical code and planted changes over back-to-back runs of one
    board, judged by `model`. Returns the counts of each part."""
    found = {}
    for label, width_model in (("the run's own interval", None), ("the stated precision", model)):
        outside, total, by_width = honesty(repeats, width_model)
        found[label] = (outside, total)
        out(f"honesty, {label}: {len(repeats)} runs, {outside} of {total} values outside another run's "
            f"95% interval ({outside / max(total, 1):.1%})")
        for band, (o, t) in sorted(by_width.items()):
            out(f"  stated {band}: {o} of {t} ({o / max(t, 1):.1%})")
    counts = {}
    loaded = [report_model.read_json(path) for path in repeats]
    for a, b in itertools.combinations(loaded, 2):
        entries, _ = judged(a, b, model)
        for e in entries:
            if e["role"] != "diagnostic":
                counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    found["identical"] = counts
    pairs = len(loaded) * (len(loaded) - 1) // 2
    out(f"compare, identical code, {pairs} pairs: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    for label, rule in (
            ("2% on results stated to 0.5% or better",
             lambda row, q, w: 0.02 if w is not None and w <= 0.005 else None),
            ("5% on every result", lambda row, q, w: 0.05)):
        after, changed = planted(loaded[1], rule, model)
        entries, _ = judged(loaded[0], after, model)
        planted_entries = [e for e in entries if e["role"] == "result" and (e["benchmark"], e["quantity"]) in changed]
        verdicts = {}
        for e in planted_entries:
            verdicts[e["verdict"]] = verdicts.get(e["verdict"], 0) + 1
        found[label] = verdicts
        out(f"planted {label}: " + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
        for e in [e for e in planted_entries if e["verdict"] != "slower"][:8]:
            out(f"  not slower: {e['benchmark']} {e['quantity']} {e['change']:+.2%} {e['verdict']} "
                f"(floor {e['tolerance']:.2%}) {e['note']}")
    return found


def without_rule_fields(model):
    """The model less everything made from rule runs (make_noise.py --rule adds it again)."""
    model = copy.deepcopy(model)
    for entry in model["classes"].values():
        for key in [k for k in entry if "_rule" in k or k == "repeat_sigma"]:
            del entry[key]
    for key in (noise.ROW_FLOORS, noise.ROW_WIDTHS, noise.ROW_SIGMA, noise.ROW_FLOORS_CROSS, "made_rule"):
        model.pop(key, None)
    return model


def leave_one_board_out(paths, model):
    """For each board: the rule fields made from the other boards' runs alone, judging that board's check runs."""
    from analysis.tables import make_noise
    by_board = {}
    for path in paths:
        context = report_model.read_json(path)["context"]
        by_board.setdefault(context.get("gpu_uuid"), []).append((path, context))
    for board, runs in sorted(by_board.items(), key=lambda item: str(item[0])):
        if board is None:
            continue  # runs over several GPUs (a node's): calibration for the others only
        others = [p for b, rs in by_board.items() if b != board for p, _ in rs]
        checks = [p for p, c in runs if c.get("gpubench_preset") == "check"]
        if len(checks) < 2:
            continue
        made = make_noise.add_rule(without_rule_fields(model), others, f"all but {board}", 2.0, 0.005)
        skus = sorted({c.get("gpu_name") or "a node" for b, rs in by_board.items() if b != board for _, c in rs})
        print(f"== {runs[0][1].get('gpu_name')} {board}: judged by the rule fields of {len(others)} runs of the "
              f"other boards ({', '.join(skus)})")
        repeatability(checks, made, out=lambda line: print("   " + line))


def across_boards(before_runs, after_runs, model):
    """compare of every run of one board against every run of another board of its SKU (the board-to-board scope):
    the count of each verdict."""
    counts = {}
    for b in before_runs:
        for a in after_runs:
            before, after = report_model.load(b), report_model.load(a)
            sides = [compare.sides_of(r.all_rows)[0] for r in (before, after)]
            for e in compare.compare_rows(*sides, model, noise.CROSS_BOARD, fixed=before.fixed_counters(),
                                          context=before.context):
                if e["role"] != "diagnostic":
                    counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    print(f"compare across boards, identical code, {len(before_runs) * len(after_runs)} pairs: "
          + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))


def planted_fault(healthy_runs, faulty, model):
    """compare of each healthy run against a run with a fault planted on the GPU: every slower, faster, changed or
    noisier result."""
    found, ambiguous = {}, 0
    for path in healthy_runs:
        entries, _ = judged(report_model.read_json(path), report_model.read_json(faulty), model)
        for e in entries:
            ambiguous += e["role"] == "result" and e["verdict"] == "ambiguous"
            if e["role"] == "result" and e["verdict"] not in ("same", "ambiguous"):
                found.setdefault((e["benchmark"], e["quantity"]), []).append(f"{e['change']:+.1%} {e['verdict']}")
    print(f"planted fault {os.path.basename(faulty)} against {len(healthy_runs)} healthy runs ({ambiguous} ambiguous "
          "results elsewhere); the findings:")
    for (name, quantity), verdicts in sorted(found.items()):
        print(f"  {name} {quantity}: {', '.join(verdicts)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixed", nargs="*", default=[])
    parser.add_argument("--new", nargs="*", default=[])
    parser.add_argument("--repeats", nargs="*", default=[])
    parser.add_argument("--noise", default=noise.MODEL)
    parser.add_argument("--leave-one-board-out", nargs="*", default=[], metavar="RUN",
                        help="rule runs of several boards: each board's check runs judged by the others' calibration")
    parser.add_argument("--across", nargs="*", default=[], metavar="RUN",
                        help="runs of another board of the SKU of --repeats: every pair judged board to board")
    parser.add_argument("--fault", help="a run with a fault planted on the GPU, judged against each of --repeats")
    args = parser.parse_args()
    for name in ("fixed", "new", "repeats", "leave_one_board_out", "across"):  # an archive: its runs
        setattr(args, name, archive.expand(getattr(args, name)))
    for fixed, new in zip(args.fixed, args.new):
        count, outside = same_answers(fixed, new, noise.load(args.noise))
        print(f"same answers: {os.path.basename(new)} against {os.path.basename(fixed)}: "
              f"{count - len(outside)} of {count} results within their precision or 1%")
        for (name, quantity), change, width in sorted(outside, key=lambda x: -abs(x[1]))[:15]:
            print(f"  {name} {quantity}: {change:+.2%} (stated +-{(width or 0):.2%})")
    if len(args.repeats) >= 2:
        repeatability(args.repeats, noise.load(args.noise))
    if args.across:
        across_boards(args.repeats, args.across, noise.load(args.noise))
    if args.fault:
        planted_fault(args.repeats, args.fault, noise.load(args.noise))
    if args.leave_one_board_out:
        leave_one_board_out(args.leave_one_board_out, noise.load(args.noise))
    return 0


if __name__ == "__main__":
    sys.exit(main())
