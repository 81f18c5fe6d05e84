"""One row of a gpubench report as data (analysis/model/report.py reads the files): its family, case, arguments, GPU,
results and stated precision; `parse_name` is the one place that reads a row's name."""
import re

from analysis.model.values import short

# Suffixes Google Benchmark appends after a row's arguments: not arguments of the experiment.
BENCHMARK_SUFFIX_KEYS = {"min_time", "min_warmup_time", "iterations", "repeats"}
TIME_SUFFIXES = {"manual_time", "real_time", "process_time"}
GPU_TAG = re.compile(r"^gpu:(\d+)$")
GPU_SEGMENT = re.compile(r"/gpu:\d+(?=/|$)")
EFFORT_SUFFIX = re.compile(r"/(?:iterations|min_time|repeats):[^/]+")
PEER_SEGMENT = re.compile(r"/peer:\d+")
# Runs from before schema 2 name no results: their result quantities by the catalog's rule of today.
LEGACY_RESULTS = (("bytes_per_second", "higher"), ("fraction_of_peak", "higher"), ("bytes_per_clock_per_sm", "higher"),
                  ("cycles_per_", "lower"), ("ns_per_", "lower"))


class ReportError(Exception):
    """What is wrong with an input, in one line."""


def typed(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_name(name):
    """(registered name, {arg: value}, gpu or None) of a row name such as
    "Stream/read/gpu:1/bytes_per_thread:16/min_time:0.100/manual_time"."""
    registered, args, gpu = [], {}, None
    for segment in name.split("/"):
        key, colon, value = segment.partition(":")
        if not colon:
            if segment in TIME_SUFFIXES or args:
                continue
            registered.append(segment)
        elif GPU_TAG.match(segment) and gpu is None:
            gpu = int(value)
        elif key not in BENCHMARK_SUFFIX_KEYS:
            args[key] = typed(value)
    return "/".join(registered), args, gpu


class Row(dict):
    """One benchmark row: the dict as written (GPU tag taken off its names) and what it is, as data."""

    def __init__(self, raw):
        super().__init__(raw)
        described = raw.get("gpubench")
        if isinstance(described, dict):
            self.registered = described.get("registered", "")
            self.args = dict(described.get("args", {}))
            self.gpu = described.get("gpu")
            self.wall_s = described.get("wall_s")  # what the case cost the run (first row of a case)
        else:
            self.registered, self.args, self.gpu = parse_name(raw.get("run_name") or raw.get("name", ""))
            self.wall_s = None
        declared = described.get("results") if isinstance(described, dict) else None
        self.results = dict(declared) if isinstance(declared, dict) else _legacy_results(raw)
        # The family as gpubench wrote it; runs from before schema 2 only name it as their first segment.
        self.family = (described.get("family") if isinstance(described, dict) else None) or self.registered.split("/")[0]
        self.full_name = raw.get("run_name", raw.get("name", ""))  # as written: GPU tag kept, if it had one
        # The name the row ran as, whatever effort measured it: Google Benchmark names a row /iterations:1 under the
        # stopping rule and /min_time:0.100 with a min time of its own.
        self.name_as_run = EFFORT_SUFFIX.sub("", self.full_name)
        self.precision = described.get("precision") if isinstance(described, dict) else None
        if self.gpu is not None:
            # The GPU is data (`gpu`), never part of the row's name: a GPU measured again for a verdict comes back
            # with its rows untagged, and they are the same rows as the tagged ones of the first reading.
            for field in ("name", "run_name"):
                if field in self:
                    self[field] = _untagged(self[field])
        # What the row is on its GPU: two runs (one GPU's part of each) pair by this; (gpu, key) is its identity.
        self.key = self.name_as_run if self.gpu is None else EFFORT_SUFFIX.sub("", _untagged(self.full_name))
        self.error = raw.get("error_message", "error") if raw.get("error_occurred") else None
        self.skipped = raw.get("skip_message", "skipped") if raw.get("skipped") else None
        if self.error and self.error.startswith("skipped: "):  # Google Benchmark 1.7 has no skip: gpubench's error
            self.error, self.skipped = None, self.error[len("skipped: "):]
        self.aggregate = raw.get("run_type") == "aggregate"

    @property
    def identity(self):
        """The row in its run: which GPU and what (one run holds each identity once, a repetition aside)."""
        return self.gpu, self.key

    def display_name(self, gpu=None):
        """The key with `gpu`'s tag after the registered name, as a node run names its rows; the key alone for None."""
        if gpu is None or not self.key.startswith(self.registered):
            return self.key
        return f"{self.registered}/gpu:{gpu}{self.key[len(self.registered):]}"

    @property
    def ok(self):
        """A finished, non-aggregate row with measurements."""
        return not (self.error or self.skipped or self.aggregate)

    @property
    def short_name(self):
        """The name without Google Benchmark's time suffix."""
        return short(self.get("name", self.get("run_name", "")))

    def matches(self, prefix):
        """Registered as `prefix` or below it ("PointerChase" matches "PointerChase/direct")."""
        return self.registered == prefix or self.registered.startswith(prefix + "/")

    def spread(self, quantity):
        """The relative spread ((q3 - min) / median) of the samples behind `quantity` (a counter, or a card
        value's unit): the clock64 spans' for a quantity in cycles, and for one per clock (per clock, a fraction
        of a peak at the measured clock) of a row that measures by its spans (a result in cycles); the launch
        times' for the rest (a bandwidth kernel's span is one block's); None when the row carries none."""
        by_spans = any(q.startswith("cycles") for q in self.results)
        by_cycles = quantity.startswith("cycles") or quantity in IN_CLOCKS or (by_spans and per_clock(quantity))
        key = "cycles_spread" if by_cycles and "cycles_spread" in self else "time_spread"
        return float(self[key]) if key in self else None

    def half_width(self, quantity):
        """The 95% half-width of a result's sampling within this run, relative to its value (the stopping rule's
        batch means; gpubench.precision.sampling_intervals, "intervals" before), or None: a run from before
        intervals, a result not read from the timed launches (a sweep's median, an energy window), or a quantity that
        is not a result. What repeats run to run is wider: analysis/cards/stated.py."""
        precision = self.precision or {}
        intervals = precision.get("sampling_intervals") or precision.get("intervals") or {}
        found = intervals.get(quantity)
        value = found.get("half_width") if isinstance(found, dict) else None
        if value is None:
            return None
        # gpubench states the wider of the launch time's and the clock64 span's; a quantity counted per SM clock
        # is read from the span alone (a power cap that moves the clock moves the time, not the cycles).
        cycles = ((self.precision or {}).get("cycles") or {}).get("half_width")
        if cycles is not None and per_clock(quantity):
            return float(cycles)
        return float(value)

    @property
    def samples(self):
        return (self.precision or {}).get("samples")

    @property
    def stop(self):
        """Why the row's sampling stopped: target, cap, fixed (Google Benchmark's min time), or None (older run)."""
        return (self.precision or {}).get("stop")

    def value(self, key, default=None):
        """A counter as float (`default` when the row lacks it, or wrote null: a value that was not finite)."""
        value = self.get(key)
        return float(value) if value is not None else default


# Results read in SM clocks whose names do not say so (the catalog's units: cycles, per clock, a ratio of two): the
# medians and extremes of a sweep over every SM, each SM timed by its own clock64 spans (a power cap that moves the
# clock moves the launch time, not them).
IN_CLOCKS = frozenset({"latency_median", "rate_median", "worst_vs_median", "min_over_sms", "median_over_sms",
                       "max_over_sms"})


def per_clock(quantity):
    """Whether a quantity (a counter, or a card value's unit) is counted per SM clock: cycles, a rate per clock,
    a fraction of a peak at the measured clock, a ratio of cycles. A change of clock does not move it, so compare
    never reads it at equal clock (that would move it by the clocks' ratio)."""
    return quantity.startswith("cycles") or quantity == "slowdown" or quantity in IN_CLOCKS or any(
        word in quantity for word in ("clock", "clk", "peak"))


def _untagged(name):
    """A row name less its first /gpu:N segment (a node run's tag of the GPU it ran on)."""
    return GPU_SEGMENT.sub("", name, count=1)


def _legacy_results(raw):
    found = {}
    for key in raw:
        for prefix, better in LEGACY_RESULTS:
            if key == prefix or (prefix.endswith("_") and key.startswith(prefix)):
                found[key] = better
    return found or {"time": "lower"}


def result_name(row_key, quantity):
    """A result's name in the noise model (analysis/cards/noise.py): its row's key, less a node run's /gpu:N, and the
    quantity."""
    return f"{GPU_SEGMENT.sub('', row_key)} {quantity}"


def preset_key(result, cls):
    """Where a result's own deviation in a preset is kept (noise.PRESET_SIGMA): a link copy's under its name less its
    /peer:N (a copy of one size and direction, to any peer); any other's under its family's and class's."""
    if cls == "link_bandwidth":
        return PEER_SEGMENT.sub("", result)
    return f"{result_family(result)} {cls}"


def result_family(result):
    """The family a result's name (result_name) belongs to: Cluster/dsmem_bandwidth of its row's key."""
    return "/".join(result.split(" ")[0].split("/")[:2])
