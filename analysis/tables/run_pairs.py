"""Runs of identical code, for the noise model (make_noise.py): each GPU of each run as the sides compare.py reads,
with its board, name, preset and code, and a change read at equal SM clock."""
import os

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
            own = [r for r in part.all_rows if gpu is None or r.gpu is not None]
            sides, _ = comparison.sides_of(own)
            sides = {name.replace(f"/gpu:{gpu}", "") if gpu is not None else name: s for name, s in sides.items()}
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
