"""Runs of identical code, for the noise model (make_noise.py): each GPU of each run as the sides compare.py reads,
with its board, name, preset and code, and a change read at equal SM clock."""
import itertools
import os

from analysis.cards import noise
from analysis.comparing import comparison
from analysis.model import cli
from analysis.model import report as report_model


def code_of(report, path, same_code):
    version = report.context.get("gpubench_source_version")
    if not version:
        return "folder:" + os.path.dirname(os.path.abspath(path))
    return same_code.get(version, version)


def parts_of(paths, same_code=None):
    """[(path, board, gpu name, preset, {name: Side}, fixed counters, code, gpu index)] of every GPU of every run."""
    found = []
    for path in paths:
        report = cli.load(path)
        code = code_of(report, path, same_code or {})
        fixed = report.fixed_counters()
        for gpu, part in report.devices():
            sides, _ = comparison.sides_of(comparison.own_rows(part))
            found.append((path, part.context.get("gpu_uuid") or f"{path}#{gpu}", part.context.get("gpu_name"),
                          part.context.get("gpubench_preset", "quick"), sides, fixed, code, gpu, part.context))
    return found


# A stated precision is of the value as measured, its clock's wander included: the noise model reads a change at
# equal clock only where the clocks differ by more than this (compare tells a clock apart from half of it).
CLOCK_WANDER = 0.01


def at_equal_clock(before, after, quantity, better):
    """The change of a quantity, at equal SM clock where the two rows' clocks differ by more than CLOCK_WANDER and
    the quantity is not already per clock: compare calls such a change "slower (clock)", never "slower", so it is
    no false alarm of the noise."""
    bm, am = before.median(quantity), after.median(quantity)
    change = am / bm - 1
    clock_b, clock_a = before.clock(), after.clock()
    if clock_b and clock_a and abs(clock_a / clock_b - 1) > CLOCK_WANDER \
            and not report_model.per_clock(quantity):
        ratio = clock_a / clock_b
        change = (am * ratio if better == "lower" else am / ratio) / bm - 1
    return change


def rule_of(context):
    """The stopping rule a run measured under, as its context states it (however it was set)."""
    return (context.get("gpubench_precision") or "").replace(" (--gpubench_precision)", "")


def rule_pairs(parts, where=noise.SAME_BOARD, by_rule=True):
    """{class: [(change, combined interval, K-free spread, before width, after width, name, GPU name, alike, board)]} over
    the pairs of one preset, stopping rule and code whose rows were both measured under the rule: of one board
    (SAME_BOARD), or of two boards of one GPU name (CROSS_BOARD). alike: both runs of one GPU alone (a repeat
    under the same conditions). by_rule False: the pairs of rows both measured at fixed effort, without intervals."""
    found = {}
    for b, a in itertools.combinations(parts, 2):
        if b[3] != a[3] or b[6] != a[6] or rule_of(b[8]) != rule_of(a[8]) or noise.scope(b[1], a[1]) != where \
                or b[2] != a[2]:
            continue
        for name, before in b[4].items():
            after = a[4].get(name)
            if after is None or before.by_rule != by_rule or after.by_rule != by_rule:
                continue
            for q, better in before.results.items():
                wb, wa = (before.half_width(q), after.half_width(q)) if by_rule else (None, None)
                if wb is None and wa is None:
                    wb = wa = 0.0  # read from an untimed sweep (SmMap's medians): no interval, the floor alone
                cls = noise.class_of(before.rows[0], q, b[8])
                if cls is None or wb is None or wa is None or q not in before.samples or q not in after.samples \
                        or not before.median(q):
                    continue
                found.setdefault(cls, []).append(
                    (abs(at_equal_clock(before, after, q, better)), (wb * wb + wa * wa) ** 0.5,
                     max(before.spread(q), after.spread(q)), wb, wa, f"{name} {q}", b[2],
                     b[7] is None and a[7] is None, b[1]))
    return found


def clock_steps(paths):
    """{GPU name: the widest step of the SM clock between two runs of one board}, relative: the median measured SM
    clock of each run, paired run by run on each board (an H100 sits at 1980 MHz in most runs, at 1995 in some)."""
    clocks = {}
    for _, board, name, _, sides, *_ in parts_of(paths):
        measured = sorted(c for c in (side.clock() for side in sides.values()) if c)
        if measured and name:
            clocks.setdefault((name, board), []).append(measured[len(measured) // 2])
    found = {}
    for (name, _), medians in sorted(clocks.items()):
        steps = [abs(a / b - 1) for a, b in itertools.combinations(medians, 2)]
        found[name] = round(max(steps + [found.get(name, 0.0)]), 5)
    return found


def least_within(share_at, share, high, steps):
    """The least deviation in [0, high] (bisected `steps` times) at which share_at(deviation) <= share; share_at
    falls as the deviation grows."""
    low = 0.0
    if share_at(low) <= share:
        return 0.0
    for _ in range(steps):
        mid = (low + high) / 2
        low, high = (low, mid) if share_at(mid) <= share else (mid, high)
    return high
