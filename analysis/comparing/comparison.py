"""Two runs' rows judged against each other, as data (compare.py renders them): each result slower, faster, same,
ambiguous or noisier by both runs' intervals (runs of the stopping rule) or their own spreads (fixed effort) and
its class's calibrated floor (analysis/cards/noise.py); fixed counters exact where proven."""
import math
import statistics

from analysis.model import cli

from analysis.cards import noise
from analysis.model import report as report_model

# Fields of a Google Benchmark row that are bookkeeping, not measurements.
NOT_QUANTITIES = {"iterations", "repetitions", "repetition_index", "threads", "family_index",
                  "per_family_instance_index", "real_time", "cpu_time"}
TIME_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
FIXED_TOLERANCE = 0.005
# Classes whose counts per SM clock move against the clock: what a DRAM stream or a link moves is set by their clocks,
# and a chase or a chain of loads that reaches DRAM takes its time there (noise.SM_CLOCK_FREE and the latencies).
CLOCK_FREE_PER_CLOCK = noise.SM_CLOCK_FREE + ("memory_latency",)
CLOCK_TOLERANCE = 0.005  # 3x the run-to-run scatter of one clock's reading (1975-1978 MHz on an H100)


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
    """(report, {name: Side}, {name: error}) of one run; a run over several GPUs names each row with its GPU's tag
    (Row.display_name), so its GPUs' rows stay apart."""
    report = cli.load(path)
    several = len({row.gpu for row in report.all_rows if row.gpu is not None}) > 1
    sides, failed = {}, {}
    for gpu, part in report.devices():
        part_sides, part_failed = sides_of(own_rows(part), gpu if several else None)
        sides.update(part_sides)
        failed.update(part_failed)
    return report, sides, failed


def own_rows(part):
    """A GPU's rows of a node run's part (Report.devices), or every row of a one-GPU run."""
    return [r for r in part.all_rows if part.gpu is None or r.gpu is not None]


def sides_of(rows, gpu=None):
    """({name: Side}, {name: error}) of one GPU's rows (and the host's), each row under its key: two runs pair by
    it, whatever GPU index or reading (first or measured again) a row came from. `gpu`: name each with that GPU's
    tag instead (Row.display_name), for a report of a node's GPUs side by side. Rows of two GPUs under one key are
    an error of the caller."""
    grouped, failed, gpus = {}, {}, {}
    for row in rows:
        if row.aggregate or row.skipped:
            continue
        if gpus.setdefault(row.key, row.gpu) != row.gpu:
            raise ValueError(f"sides_of: {row.key} of GPUs {gpus[row.key]} and {row.gpu}: give one GPU's rows")
        name = row.display_name(gpu)
        if row.error:
            failed[name] = row.error
            continue
        grouped.setdefault(name, []).append(row)
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
        if where != noise.SAME_BOARD and names_another_gpu(row):
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
                result = noise.result_name(row.key, quantity)
                floor = noise.floor(model, cls, where, rule, result, (context or {}).get("gpu_name"))
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
                    # A result read from an untimed sweep (no interval): the floor alone, never the row's own spread.
                    # The floor already holds the calibration's margin, as for a timed result beyond its intervals.
                    tolerance = floor
                    verdict, _ = judge_with_intervals(change, better, floor, 0.0, 0.0, None, None)
                else:  # a run from before intervals: as before them
                    tolerance = max(floor, factor * b.spread(quantity), factor * a.spread(quantity))
                    verdict = judge(change, better, tolerance)
                entry["tolerance"] = tolerance
                in_clocks = report_model.per_clock(quantity)
                if clock_b and clock_a and abs(clock_a / clock_b - 1) > CLOCK_TOLERANCE \
                        and (not in_clocks or cls in CLOCK_FREE_PER_CLOCK):
                    # At equal clock: a time scales with 1/clock, a rate with the clock; a count per SM clock of what
                    # the SM clock does not set (a DRAM stream's bytes, a DRAM-bound chain's cycles) the other way. A
                    # count per clock of what the SM sets never moves with the clock.
                    ratio = clock_a / clock_b
                    if in_clocks:
                        ratio = 1 / ratio
                    at_clock = (am * ratio if better == "lower" else am / ratio) / bm - 1 if bm else change
                    equal = judge(at_clock, better, tolerance)
                    entry["note"] = (entry["note"] + "; " if entry["note"] else "") + \
                        f"SM clock {clock_b:.0f} -> {clock_a:.0f} MHz; at equal clock {at_clock:+.2%}"
                    if verdict in ("slower", "faster") and equal != verdict:
                        verdict += " (clock)"
                entry["verdict"] = verdict
            out.append(entry)
    return out


# Rows only a node run has (registry.h's running_as_node): a GPU alone has no twin of them.
NODE_ONLY_ROWS = ("HostLink/together",)


def node_only(row):
    return row.registered in NODE_ONLY_ROWS


def names_another_gpu(row):
    """A row of a link or of a peer's memory: which pairs a run measures depends on its GPUs and the node's schedule."""
    return bool({"peer", "memory_on"} & set(row.args))


def host_row(row):
    """A row of the host (no GPU): its results are the host class's, which compare never judges."""
    return row.gpu is None and any(noise.class_of(row, q) in noise.NOT_JUDGED for q in row.results)
