#!/usr/bin/env python3
"""Did my change make it slower? Two gpubench runs compared row by row, with a verdict per result that knows
the noise: slower, faster, same or ambiguous.

    compare.py BEFORE.json AFTER.json [--threshold PCT] [--filter REGEX] [--diagnostics] [--all]
               [--format console|md] [--allow-different-devices] [--noise FILE]

What is judged: each row's result quantities (the row names them, with the direction that is better: e.g.
bytes_per_second higher, cycles_per_load lower) whose family declares their class of measurement
(analysis/noise.py), and the counters the catalog calls fixed that runs of identical code on several boards and
SKUs proved fixed (instructions, conflicts, bytes: any change is a change of the code). A row with no declared
result is not judged by its raw time. Diagnostics (a bandwidth kernel's block-0 clock64 span, DRAM bytes of a
row whose data sits in L2, hit rates, counters not proven fixed, host rows) are shown with --diagnostics, never
judged.

A change is judged against the class's calibrated floor in this scope (run to run when both runs are of one board,
by gpu_uuid; board to board otherwise: analysis/noise_model.json, which holds on any GPU). Rows measured under the
stopping rule carry intervals: beyond the floor by more than both intervals, slower or faster; within it by more
than them, same; else ambiguous, with the launches that would decide it. A side far noisier than its class and the
other side is "noisier", a finding of its own. Runs of fixed effort: the floor or K times each side's own spread
(the [min, q3] width of its launches, or of its repetitions), whichever is larger; within it same, beyond twice it
slower or faster, between ambiguous. Where the SM clocks of the two rows differ by more than
1%, a time or rate is judged again at equal clock: "slower (clock)" says the row is slower only because its
clock was lower.

Runs over several GPUs are compared GPU by GPU. Exit status: 0; 1 with --threshold when a result is slower by
more than PCT percent (and beyond the noise), a fixed counter changed, or a row failed or is missing on one
side; 2 bad input, runs of different GPUs or GPU counts (unless allowed), or nothing compared.
"""
import argparse
import math
import os
import re
import statistics
import sys

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis import cli, noise  # noqa: E402
from analysis import report as report_model  # noqa: E402

GPU_SUFFIX = re.compile(r"/gpu:\d+")  # a node run's row of one GPU: the same row as a one-GPU run's

# Fields of a Google Benchmark row that are bookkeeping, not measurements.
NOT_QUANTITIES = {"iterations", "repetitions", "repetition_index", "threads", "family_index",
                  "per_family_instance_index", "real_time", "cpu_time"}
CONTEXT_KEYS = [("GPU", "gpu_name"), ("board", "gpu_uuid"), ("SM clock (MHz, measured)", "gpu_sm_clock_mhz_measured"),
                ("driver", "cuda_driver_version"), ("counters", "gpubench_counters"), ("cold L2", "gpubench_cold_l2"),
                ("preset", "gpubench_preset"), ("date", "date")]
TIME_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
FIXED_TOLERANCE = 0.005
CLOCK_TOLERANCE = 0.01


class Side:
    """One run's rows of a name: the samples of every quantity (repetitions), what the row judges, its spreads."""

    def __init__(self, rows):
        self.rows = rows
        self.samples = {}
        for row in rows:
            self.samples.setdefault("time", []).append(
                float(row["real_time"]) * TIME_SCALE.get(row.get("time_unit", "ns"), 1))
            for key, value in row.items():
                if key not in NOT_QUANTITIES and isinstance(value, (int, float)) and not isinstance(value, bool):
                    self.samples.setdefault(key, []).append(float(value))
        self.results = rows[0].results

    def median(self, quantity):
        return statistics.median(self.samples[quantity])

    def spread(self, quantity):
        """The larger of the rows' own spread and the spread of the repetitions ((max - min) / median)."""
        own = [s for s in (row.spread(quantity) for row in self.rows) if s is not None]
        values = self.samples.get(quantity, [])
        between = (max(values) - min(values)) / abs(statistics.median(values)) if len(values) > 1 and \
            statistics.median(values) else 0.0
        return max([between] + own)

    def half_width(self, quantity):
        """The stated 95% half-width of a result (relative), combined over repetitions, or None where a row states
        none (an older run, a result not read from the timed launches)."""
        widths = [row.half_width(quantity) for row in self.rows]
        if not widths or any(w is None for w in widths):
            return None
        return math.sqrt(sum(w * w for w in widths)) / len(widths)  # the mean of independent estimates

    @property
    def by_rule(self):
        """Whether every row was measured under the stopping rule (--gpubench_precision). Rows of fixed effort are
        judged as before intervals, against the floors calibrated on such runs."""
        return all(row.stop in ("target", "cap") for row in self.rows)

    def launches(self):
        counts = [row.samples for row in self.rows if row.samples]
        return sum(counts) if counts else None

    def clock(self):
        clocks = self.samples.get("sm_mhz")
        return statistics.median(clocks) if clocks else None


def load(path):
    """(report, {full name: Side}, {full name: error}) of one run. Full names keep their GPU tag, so two runs
    over several GPUs pair GPU by GPU."""
    report = cli.load(path)
    sides, failed = sides_of(report.all_rows)
    return report, sides, failed


def sides_of(rows):
    """({full name: Side}, {full name: error}) of a run's rows."""
    grouped, failed = {}, {}
    for row in rows:
        if row.aggregate or row.skipped:
            continue
        if row.error:
            failed[row.key] = row.error
            continue
        grouped.setdefault(row.key, []).append(row)
    return {name: Side(same) for name, same in grouped.items()}, failed


def device_names(report):
    """{gpu: name} of a run (gpu None for a one-GPU run)."""
    return {gpu: part.context.get("gpu_name") for gpu, part in report.devices()}


def device_boards(report):
    """{gpu: gpu_uuid} of a run."""
    return {gpu: part.context.get("gpu_uuid") for gpu, part in report.devices()}


def oriented(change, better):
    """The change with worse positive."""
    return change if better == "lower" else -change


def judge(change, better, tolerance):
    worse = oriented(change, better)
    if abs(worse) <= tolerance:
        return "same"
    if abs(worse) > 2 * tolerance:
        return "slower" if worse > 0 else "faster"
    return "ambiguous"


NOISIER_FACTOR = 4.0  # a side this many times noisier than its class's floor and the other side is a finding
NOISIER_LEAST = 0.02  # and at least this noisy: launch jitter of a stable row is no fault
NOISIER_KNOWN = 2.0  # and this many times its widest calibrated interval


def judge_with_intervals(change, better, floor, width_before, width_after, samples_before, samples_after):
    """(verdict, note) of a change whose sides state their 95% half-widths: beyond the class's floor by more than
    the two intervals combined, slower or faster; inside the floor with them, same; otherwise ambiguous, with how
    many more launches would decide it (a half-width shrinks with the square root of the samples)."""
    worse = oriented(change, better)
    combined = math.sqrt(width_before ** 2 + width_after ** 2)
    if worse - combined > floor:
        return "slower", ""
    if worse + combined < -floor:
        return "faster", ""
    if abs(worse) + combined <= floor:
        return "same", ""
    gap = abs(abs(worse) - floor)
    if gap == 0 or not samples_before or not samples_after:
        return "ambiguous", f"the intervals (+-{combined:.2%}) straddle the noise floor ({floor:.2%})"
    factor = (combined / gap) ** 2
    return "ambiguous", (f"the intervals (+-{combined:.2%}) straddle the noise floor ({floor:.2%}): about "
                         f"{factor:.1f}x the launches ({int(samples_before * factor)} and "
                         f"{int(samples_after * factor)}) would decide it")


def noisier_side(b, a, quantity, floor, known=0.0):
    """'BEFORE' or 'AFTER' when that side's own noise is far above its class's floor and the other side's: a finding
    of its own (a fault that makes a row noisy), never a wider tolerance. By the stated half-widths where both
    sides have them, else by the launches' spreads. `known`: the widest interval the result had in its calibration
    runs (a power-capped row's width moves with its clock from run to run): noisier means beyond twice that."""
    wb, wa = b.half_width(quantity), a.half_width(quantity)
    if wb is None or wa is None:
        wb, wa = b.spread(quantity), a.spread(quantity)
    for name, mine, theirs in (("AFTER", wa, wb), ("BEFORE", wb, wa)):
        if mine > max(NOISIER_LEAST, NOISIER_FACTOR * max(floor, theirs), NOISIER_KNOWN * known):
            return name, mine, theirs
    return None


def compare_rows(before, after, model, where, show_diagnostics=False, fixed=(), context=None):
    """[{benchmark, quantity, role, class, before, after, change, tolerance, verdict, note}] of the pairs of rows,
    judged by the noise `model` in scope `where` (noise.SAME_BOARD or CROSS_BOARD). fixed: the counters the
    catalog calls fixed (judged only where the model proved them fixed for the row's family)."""
    out = []
    factor = model.get("own_spread_factor", 2.0)
    for name, b in before.items():
        a = after.get(name)
        if a is None:
            continue
        results = dict(b.results)
        results.update(a.results)
        row = b.rows[0]
        if where != noise.SAME_BOARD and {"peer", "memory_on"} & set(row.args):
            continue  # a row naming another GPU is of a pair of boards: another pair is another link
        quantities, shown = [], set()
        for q, better in results.items():
            if q not in b.samples or q not in a.samples:
                continue
            cls = noise.class_of(row, q, context)
            if cls is None or cls in noise.NOT_JUDGED or noise.floor(model, cls, where) is None:
                if show_diagnostics:
                    quantities.append((q, "diagnostic", None, cls))
                shown.add(q)
                continue
            quantities.append((q, "result", better, cls))
            shown.add(q)
        judged_fixed = {q for q in b.samples if q in fixed and q in a.samples and q not in results
                        and noise.proven_fixed(model, row.family, q)}
        quantities += [(q, "fixed", None, None) for q in sorted(judged_fixed)]
        if show_diagnostics:
            quantities += [(q, "diagnostic", None, None) for q in b.samples
                           if q in a.samples and q not in shown and q not in judged_fixed]
        clock_b, clock_a = b.clock(), a.clock()
        for quantity, role, better, cls in quantities:
            bm, am = b.median(quantity), a.median(quantity)
            change = (am - bm) / abs(bm) if bm else (0.0 if am == 0 else float("inf"))
            entry = {"benchmark": name, "quantity": quantity, "role": role, "class": cls, "before": bm, "after": am,
                     "change": change, "tolerance": None, "verdict": "", "note": ""}
            if role == "fixed":
                tolerance = model.get("fixed_tolerance", FIXED_TOLERANCE)
                entry["tolerance"] = tolerance
                entry["verdict"] = "changed" if abs(change) > tolerance else "same"
            elif role == "result":
                rule = b.by_rule and a.by_rule
                result = f"{GPU_SUFFIX.sub('', name)} {quantity}"
                floor = noise.floor(model, cls, where, rule, result)
                width_b, width_a = b.half_width(quantity), a.half_width(quantity)
                noisy = noisier_side(b, a, quantity, floor, noise.known_width(model, result)) if rule else None
                if noisy:
                    # Its noise is the finding: judged on the class's floor alone, the change is said beside it.
                    side, mine, theirs = noisy
                    tolerance = floor
                    verdict = "noisier"
                    entry["note"] = (f"{side} is noisier: +-{mine:.2%} against +-{theirs:.2%} and a floor of "
                                     f"{floor:.2%}; the change alone: {judge(change, better, floor)}")
                elif rule and width_b is not None and width_a is not None:
                    # The within-run intervals miss what varies from run to run; the rule floors are calibrated
                    # beyond them (make_noise.py --rule), so a row's own spread never widens them.
                    tolerance = max(floor, math.sqrt(width_b ** 2 + width_a ** 2))
                    verdict, entry["note"] = judge_with_intervals(change, better, floor, width_b, width_a,
                                                                  b.launches(), a.launches())
                elif rule:
                    # A result read from an untimed sweep (no interval): the floor, never the row's own spread.
                    tolerance = floor
                    verdict = judge(change, better, tolerance)
                else:  # a run from before intervals: as before them
                    tolerance = max(floor, factor * b.spread(quantity), factor * a.spread(quantity))
                    verdict = judge(change, better, tolerance)
                entry["tolerance"] = tolerance
                if clock_b and clock_a and abs(clock_a / clock_b - 1) > CLOCK_TOLERANCE \
                        and not report_model.per_clock(quantity):
                    # At equal clock: a time scales with 1/clock, a rate with the clock.
                    ratio = clock_a / clock_b
                    at_clock = (am * ratio if better == "lower" else am / ratio) / bm - 1 if bm else change
                    equal = judge(at_clock, better, tolerance)
                    entry["note"] = (entry["note"] + "; " if entry["note"] else "") + \
                        f"SM clock {clock_b:.0f} -> {clock_a:.0f} MHz; at equal clock {at_clock:+.2%}"
                    if verdict in ("slower", "faster") and equal != verdict:
                        verdict += " (clock)"
                entry["verdict"] = verdict
            out.append(entry)
    return out


def host_row(row):
    """A row of the host (no GPU): its results are the host class's, which compare never judges."""
    return row.gpu is None and any(noise.class_of(row, q) in noise.NOT_JUDGED for q in row.results)


def number(value):
    return f"{value:.6g}"


def render(entries, fmt):
    header = ["benchmark", "quantity", "before", "after", "change", "noise", "verdict", "note"]
    cells = [[e["benchmark"], e["quantity"] + (f" [{e['class']}]" if e["role"] == "result" else f" ({e['role']})"),
              number(e["before"]), number(e["after"]),
              "inf" if e["change"] == float("inf") else f"{e['change']:+.2%}",
              "-" if e["tolerance"] is None else f"{e['tolerance']:.1%}", e["verdict"], e["note"]] for e in entries]
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|---|---|---:|---:|---:|---:|---|---|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(lines)
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def picked_devices(before_report, after_report, picks):
    """[(label, before part, after part)] of one GPU of each run: `picks` (before GPU, after GPU) in runs over
    several GPUs; a one-GPU run gives its only GPU."""
    pairs = []
    parts = []
    for side, report, pick in (("BEFORE", before_report, picks[0]), ("AFTER", after_report, picks[1])):
        devices = dict(report.devices())
        if list(devices) == [None]:
            parts.append(devices[None])
        elif pick in devices:
            parts.append(devices[pick])
        else:
            raise cli.UsageError(f"--gpu: {side} has no GPU {pick} (it has "
                                 f"{', '.join(str(g) for g in devices if g is not None)})")
    pairs.append((f"{picks[0]}:{picks[1]}", parts[0], parts[1]))
    return pairs


def paired_devices(before_report, after_report, allow_different):
    """[(gpu, before part, after part)] of two runs, GPU by GPU; different GPUs or GPU counts are a UsageError
    unless allowed."""
    before, after = dict(before_report.devices()), dict(after_report.devices())
    if set(before) != set(after):
        count = lambda parts: "one GPU" if list(parts) == [None] else f"GPUs {', '.join(map(str, parts))}"
        if not allow_different:
            raise cli.UsageError(f"the runs are of different GPUs ({count(before)} and {count(after)}); compare "
                                 "runs of the same GPUs, pick one of each with --gpu N[:M], or pass "
                                 "--allow-different-devices")
        if len(before) == 1 and len(after) == 1:  # one GPU each, allowed: pair them
            return [(None, next(iter(before.values())), next(iter(after.values())))]
    pairs = []
    for gpu, part in before.items():
        if gpu not in after:
            continue
        b, a = part.context.get("gpu_name"), after[gpu].context.get("gpu_name")
        if b != a and not allow_different:
            where = f"GPU {gpu}: " if gpu is not None else ""
            raise cli.UsageError(f"the runs come from different GPUs ({where}{b} and {a}); pass "
                                 "--allow-different-devices to compare them anyway")
        pairs.append((gpu, part, after[gpu]))
    return pairs


def run_compare(before_path, after_path, name_filter=".", threshold=None, diagnostics=False, allow_different=False,
                noise_path=noise.MODEL, picks=None):
    """Everything main() prints, as data: (status, context lines, entries, problems, summary, slower, changed)."""
    name_filter = cli.regex(name_filter, "--filter")
    before_report, _, before_failed = load(before_path)
    after_report, _, after_failed = load(after_path)
    try:
        model = noise.load(noise_path)
    except (OSError, ValueError) as e:
        raise cli.UsageError(f"noise model: {e}") from None
    fixed = before_report.fixed_counters() | after_report.fixed_counters()
    entries, scopes = [], []
    before, after = {}, {}
    pairs = picked_devices(before_report, after_report, picks) if picks else \
        paired_devices(before_report, after_report, allow_different)
    for gpu, b_part, a_part in pairs:
        own = (lambda row: row.gpu is not None) if gpu is not None else (lambda row: True)
        b_sides, _ = sides_of([r for r in b_part.all_rows if own(r) or picks])
        a_sides, _ = sides_of([r for r in a_part.all_rows if own(r) or picks])
        if picks:  # one GPU of a node and another run's: the same row whatever its GPU's index
            b_sides = {GPU_SUFFIX.sub("", n): v for n, v in b_sides.items() if v.rows[0].gpu is not None
                       or list(dict(before_report.devices())) == [None]}
            a_sides = {GPU_SUFFIX.sub("", n): v for n, v in a_sides.items() if v.rows[0].gpu is not None
                       or list(dict(after_report.devices())) == [None]}
        b_sides = {n: s for n, s in b_sides.items() if name_filter.search(n)}
        a_sides = {n: s for n, s in a_sides.items() if name_filter.search(n)}
        before.update(b_sides)
        after.update(a_sides)
        where = noise.scope(b_part.context.get("gpu_uuid"), a_part.context.get("gpu_uuid"))
        scopes.append(where)
        entries += compare_rows(b_sides, a_sides, model, where, diagnostics, fixed, b_part.context)
    problems = []
    for side, errors, other in (("BEFORE", before_failed, after), ("AFTER", after_failed, before)):
        for name, error in sorted(errors.items()):
            if name_filter.search(name):
                problems.append(f"failed in {side}: {name}: {error}")
    said = []  # host rows that only one host has (a sweep up to its cores): said, not failed
    for label, mine, theirs, their_failed in (("only in BEFORE", before, after, after_failed),
                                              ("only in AFTER", after, before, before_failed)):
        for name in sorted(n for n in mine if n not in theirs and n not in their_failed):
            if host_row(mine[name].rows[0]):
                said.append(f"{label} (a host row: the hosts differ): {name}")
            else:
                problems.append(f"{label}: {name}")
    judged = [e for e in entries if e["role"] != "diagnostic"]
    if not judged:
        raise cli.UsageError("nothing compared: no row of the one run (after --filter) has a measured twin in the other"
                             + (f" ({len(problems)} failed or missing)" if problems else ""))
    problems += said  # shown with the rest, after the problems that fail
    problems_failing = len(problems) - len(said)
    counts = {}
    for e in judged:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    slower = [e for e in judged if e["verdict"] in ("slower", "noisier")
              and (threshold is None or e["verdict"] == "noisier" or abs(e["change"]) * 100 > threshold)]
    changed = [e for e in judged if e["verdict"] == "changed"]
    rows = len({e["benchmark"] for e in judged})
    scope_text = " and ".join(sorted(set(scopes))).replace("_", " ")
    summary = (f"{rows} rows, {len(judged)} quantities judged ({scope_text} noise): " +
               ", ".join(f"{counts[v]} {v}" for v in sorted(counts)) +
               (f"; {problems_failing} row(s) failed or missing on one side" if problems_failing else "") +
               (f"; {len(said)} host row(s) on one side only (the hosts differ)" if said else ""))
    status = 0
    if threshold is not None and (slower or changed or problems_failing):
        status = 1
    context = [(label, str(before_report.context.get(key, "-")), str(after_report.context.get(key, "-")))
               for label, key in CONTEXT_KEYS]
    return status, context, entries, problems, summary, slower, changed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--filter", default=".", help="benchmarks whose name matches this regex")
    parser.add_argument("--threshold", type=float,
                        help="exit 1 when a result is slower by more than PCT percent (beyond the noise), a fixed "
                             "counter changed, or a row failed or is missing on one side")
    parser.add_argument("--diagnostics", action="store_true", help="show the diagnostic counters too (not judged)")
    parser.add_argument("--all", action="store_true", help="show every judged quantity, the same ones too")
    parser.add_argument("--format", choices=["console", "md"], default="console")
    parser.add_argument("--allow-different-devices", action="store_true")
    parser.add_argument("--gpu", metavar="N[:M]",
                        help="compare GPU N of BEFORE with GPU M (default N) of AFTER, where either run is of a node "
                             "(several GPUs) and the other of one GPU or of another node")
    parser.add_argument("--noise", default=noise.MODEL, help="the noise model (default: the shipped one)")
    args = parser.parse_args()
    if args.threshold is not None and args.threshold < 0:
        parser.error("--threshold must be a percentage of 0 or more")
    picks = None
    if args.gpu is not None:
        first, _, second = args.gpu.partition(":")
        if not first.isdigit() or (second and not second.isdigit()):
            parser.error(f"--gpu {args.gpu}: give N or N:M (GPU indices)")
        picks = (int(first), int(second or first))
    status, context, entries, problems, summary, slower, changed = run_compare(
        args.before, args.after, args.filter, args.threshold, args.diagnostics, args.allow_different_devices,
        args.noise, picks)
    md = args.format == "md"
    print("| | before | after |\n|---|---|---|" if md else f"{'':26}{'before':40}after")
    for label, b, a in context:
        print(f"| {label} | {b} | {a} |" if md else f"{label:26}{b:40}{a}")
    print()
    shown = [e for e in entries if args.all or e["role"] == "diagnostic" or e["verdict"] not in ("same",)]
    if shown:
        print(render(shown, args.format))
    for line in problems:
        print(line)
    print(f"\n{summary}")
    if status:
        reasons = [f"{e['verdict']}: {e['benchmark']} {e['quantity']} {e['change']:+.1%}" for e in slower[:10]]
        reasons += [f"fixed counter changed: {e['benchmark']} {e['quantity']} {e['change']:+.2%}" for e in changed[:10]]
        reasons += [p for p in problems if "(a host row" not in p][:10]
        print("compare.py: FAIL: " + "; ".join(reasons), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(cli.main(main))
