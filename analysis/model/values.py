"""A value of the card, and the formatting every family's rules share."""
import re
import statistics

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


# Which way a card value is abnormal (the SKU check): "higher" is better (a rate: abnormal only when low),
# "lower" (a latency or cost: only when high), "exact" (a capacity or a count: when different, either way),
# "spread" (over SMs: only when high) or "info" (depends on where the hardware placed the work: never judged).
BETTER = ("higher", "lower", "exact", "spread", "info")
# What sets a value, which says which layer of the verdict may judge it (analysis/verdict/judge.py): "sm" the SM's
# design (a latency or rate in clocks, a fraction of a pipe's peak: every part of one compute capability reads
# the same), "chip" a fraction of the chip's own theoretical peak (its memory's, from its own attributes),
# "part" the product (absolute rates, nanoseconds, the memory system behind L2): its SKU's limits only.
SET_BY = ("sm", "chip", "part")
# The default by unit; a family module passes better= where its value is another kind.
UNIT_BETTER = {"cycles": "lower", "ns": "lower", "cycles/KiB": "lower", "cycles per FFMA": "lower",
               "cycles per way": "lower", "cycles per warp load": "lower", "pJ": "lower", "pJ/bit": "lower",
               "pJ/FLOP": "lower", "bytes": "exact", "N": "exact", "instructions per element": "exact",
               "of the fastest": "spread", "x": "info"}


def default_better(unit, bracket=False):
    if bracket:
        return "exact"
    return UNIT_BETTER.get(unit, "higher")  # rates, bandwidths and fractions of a peak


class Value(dict):
    """One quantity of the card: key, section, label, value, unit, the rows it came from (source) and
    its text. bracket: for a capacity, [last size below the edge, first size past it]: a sweep resolves
    an edge only to its grid, so two runs agree when their brackets meet. value None: not measured.
    better: which way the value is abnormal (BETTER; by default from the unit). limit: a limit of the value's
    own, whatever the SKU ({"low", "high", "source"}: against the chip itself, as the per-SM map's SMs against
    their median), which the SKU check judges beside the SKU's limits. set_by: what sets it (SET_BY; "part" unless
    the family declares it the SM's or a fraction of the chip's own peak)."""

    def __init__(self, key, section, label, value, unit, source, text=None, bracket=None, better=None, limit=None,
                 set_by="part"):
        super().__init__(key=key, section=section, label=label, value=value, unit=unit, source=source, text=text)
        if set_by not in SET_BY:
            raise ValueError(f"{key}: set_by={set_by!r} is not one of {SET_BY}")
        self["set_by"] = set_by
        if bracket:
            self["bracket"] = [float(b) for b in bracket]
        if better is not None:
            if better not in BETTER:
                raise ValueError(f"{key}: better={better!r} is not one of {BETTER}")
            self["better"] = better
        if limit is not None:
            self["limit"] = dict(limit)

    @classmethod
    def missing(cls, key, section, label, unit=""):
        return cls(key, section, label, None, unit, None)


def not_run(report, registered, key, section, label, unit):
    """"not measured", or the reason the rows registered as `registered` gave for skipping (an
    instruction or unit the GPU lacks)."""
    skipped = [r for r in report.all_rows if r.skipped and r.matches(registered)]
    if skipped:
        return Value(key, section, label, None, unit, skipped[0].short_name, f"skipped: {skipped[0].skipped}")
    return Value.missing(key, section, label, unit)


def size_text(size):
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size:.0f} B"


class Sweep(str):
    """A value's source that names a sweep over sizes: the text the card shows ("PointerChase/cached/bytes:
    16384..196608/stride:128 (4 rows)") and, as data, the rows it names (`rows(report)`: every finished row
    registered as `registered` with bytes in the range and the other arguments equal)."""

    def __new__(cls, registered, sizes, args=None):
        sizes = sorted(int(s) for s in sizes)
        args = dict(args or {})
        sized = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}..{sizes[-1]}"
        rest = "".join(f"/{axis}:{value}" for axis, value in args.items())
        made = super().__new__(cls, f"{registered}/bytes:{sized}{rest} ({len(sizes)} row{'s' if len(sizes) > 1 else ''})")
        made.registered, made.low, made.high, made.args = registered, sizes[0], sizes[-1], args
        return made

    def rows(self, report):
        return [row for row in report.rows(self.registered) if row.registered == self.registered
                and self.low <= int(row.args.get("bytes", -1)) <= self.high
                and all(str(row.args.get(axis)) == str(value) for axis, value in self.args.items())]


def short(name):
    """A row name without Google Benchmark's time suffix."""
    for suffix in ("/manual_time", "/real_time"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    return re.sub(r"/iterations:\d+$", "", name)  # the stopping rule's one iteration: no argument of the row


def median(values):
    values = list(values)
    return statistics.median(values) if values else None


def mean_rows(rows):
    """Rows of the same case (repetitions) averaged: one dict per run name with every numeric field's
    mean, its run_name, and the first row's arguments as `args`."""
    by_name = {}
    for row in rows:
        by_name.setdefault(row["run_name"], []).append(row)
    merged = []
    for same in by_name.values():
        entry = {key: statistics.mean(float(r[key]) for r in same)
                 for key in same[0] if isinstance(same[0][key], (int, float)) and not isinstance(same[0][key], bool)}
        entry["run_name"] = same[0]["run_name"]
        entry["args"] = same[0].args
        merged.append(entry)
    return merged


def rows_of(report, source):
    """The finished rows a value's `source` names: a Sweep's rows, or the rows whose names it lists (joined by
    ", ", each maybe followed by " (...)"). Sources that name families only give none."""
    if not source:
        return []
    if isinstance(source, Sweep):
        return source.rows(report)
    by_name = {}
    for row in report.rows():
        by_name.setdefault(row.short_name, []).append(row)
    found = []
    for part in source.split(", "):
        found += by_name.get(part.split(" (")[0].strip().strip("`"), [])
    return found


def _cache_bytes(context):
    """(L1, L2) bytes of the chip the run names (shared memory per SM as the L1's measure); 0 where unknown."""
    try:
        return (float(context.get("gpu_shared_memory_per_sm_bytes") or 0), float(context.get("gpu_l2_bytes") or 0))
    except (TypeError, ValueError):
        return 0.0, 0.0


def in_the_l1(size, context, below=0.75):
    """Whether a working set of `size` bytes fits well inside this chip's L1, below the window at_an_edge gives its
    edge."""
    l1_bytes = _cache_bytes(context)[0]
    return bool(l1_bytes and size < below * l1_bytes)


def at_an_edge(size, context, l1=(0.75, 1.5), l2=(0.4, 1.25)):
    """Whether a working set of `size` bytes lies near a capacity edge of this chip, where placement moves a
    reading: within the window `l1` of its L1 (shared memory per SM as its measure) or `l2` of its L2 (fractions of
    each; None: that edge is not the family's). The defaults span a chase's edges: the L1's, the near L2 partition's
    (half the L2) and the L2's."""
    l1_bytes, l2_bytes = _cache_bytes(context)
    return bool((l1 and l1_bytes and l1[0] * l1_bytes <= size <= l1[1] * l1_bytes) or
                (l2 and l2_bytes and l2[0] * l2_bytes <= size <= l2[1] * l2_bytes))
