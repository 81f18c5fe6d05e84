#!/usr/bin/env python3
"""The stopping rule against fixed effort, and whether its stated precision is honest (docs/results/
2026-11-26-precision). From runs of one board:

    precision_calibration.py --fixed OLD_QUICK.json --new NEW_QUICK.json ... --repeats RUN.json ... [--noise FILE]

1. Same answers: every result of a new run against the fixed-effort run of the same board, paired by row: within
   its stated precision or 1%, whichever is larger (the rest listed).
2. Honest precision: over the back-to-back runs (--repeats, identical code, one board), the share of results whose
   value falls outside another run's stated 95% interval, for every ordered pair of runs.
3. compare: every pair of the repeats judged with intervals (0 slower, faster, changed or noisier wanted), and
   planted changes: 2% on each result whose precision is 0.5% or better, 5% on every judged result, a noisy
   fault (-42%, half-width 13%) on one row.
"""
import argparse
import copy
import itertools
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
from analysis import compare, noise  # noqa: E402
from analysis import report as report_model  # noqa: E402


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
            if value is not None:
                width = row.half_width(quantity)
                if model is not None:
                    width = noise.stated_half_width(model, noise.class_of(row, quantity, report.context), width)
                found[(row.key, quantity)] = (value, width, (row.value("sm_mhz"), better))
    return found


def same_answers(fixed, new):
    old, now = results(fixed), results(new)
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


def judged(before, after, model_path):
    """compare.py's entries for two run dicts of one board (the run-to-run scope)."""
    model = noise.load(model_path)
    sides = [compare.sides_of(report_model.from_dict(data).all_rows)[0] for data in (before, after)]
    return compare.compare_rows(*sides, model, noise.SAME_BOARD, fixed=report_model.from_dict(before).fixed_counters(),
                                context=before.get("context", {})), None


def planted(data, rule):
    """A copy of a run whose results `rule(row, quantity, width)` scales (a factor, or None to leave)."""
    out = copy.deepcopy(data)
    for raw in out["benchmarks"]:
        row = report_model.Row(raw)
        if not row.ok:
            continue
        for quantity, better in row.results.items():
            if quantity == "time" or quantity not in raw:
                continue
            factor = rule(row, quantity, row.half_width(quantity))
            if factor is not None:
                worse = factor if better == "lower" else 1 / factor
                raw[quantity] = raw[quantity] * worse
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixed", nargs="*", default=[])
    parser.add_argument("--new", nargs="*", default=[])
    parser.add_argument("--repeats", nargs="*", default=[])
    parser.add_argument("--noise", default=noise.MODEL)
    args = parser.parse_args()
    for fixed, new in zip(args.fixed, args.new):
        count, outside = same_answers(fixed, new)
        print(f"same answers: {os.path.basename(new)} against {os.path.basename(fixed)}: "
              f"{count - len(outside)} of {count} results within their precision or 1%")
        for (name, quantity), change, width in sorted(outside, key=lambda x: -abs(x[1]))[:15]:
            print(f"  {name} {quantity}: {change:+.2%} (stated +-{(width or 0):.2%})")
    if len(args.repeats) >= 2:
        for label, model in (("the run's own interval", None), ("the stated precision", noise.load(args.noise))):
            outside, total, by_width = honesty(args.repeats, model)
            print(f"honesty, {label}: {len(args.repeats)} runs, {outside} of {total} values outside another run's "
                  f"95% interval ({outside / max(total, 1):.1%})")
            for band, (o, t) in sorted(by_width.items()):
                print(f"  stated {band}: {o} of {t} ({o / max(t, 1):.1%})")
        counts = {}
        for a, b in itertools.combinations(args.repeats, 2):
            entries, _ = judged(report_model.read_json(a), report_model.read_json(b), args.noise)
            for e in entries:
                if e["role"] != "diagnostic":
                    counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
        pairs = len(list(itertools.combinations(args.repeats, 2)))
        print(f"compare, identical code, {pairs} pairs: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
        base = report_model.read_json(args.repeats[0])
        after = report_model.read_json(args.repeats[1])
        for label, rule in (
                ("2% on results stated to 0.5% or better",
                 lambda row, q, w: 1.02 if w is not None and w <= 0.005 else None),
                ("5% on every result", lambda row, q, w: 1.05)):
            entries, _ = judged(base, planted(after, rule), args.noise)
            # The planted results: those that moved by more than 1.5% (identical code moves less on these runs).
            planted_entries = [e for e in entries if e["role"] == "result" and abs(e["change"]) > 0.015]
            verdicts = {}
            for e in planted_entries:
                verdicts[e["verdict"]] = verdicts.get(e["verdict"], 0) + 1
            print(f"planted {label}: " + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
            misses = [e for e in planted_entries if e["verdict"] != "slower"]
            for e in misses[:8]:
                print(f"  not slower: {e['benchmark']} {e['quantity']} {e['change']:+.2%} {e['verdict']} "
                      f"(floor {e['tolerance']:.2%}) {e['note']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
