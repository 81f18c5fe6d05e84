"""The report model: one or several gpubench JSON files as rows of data.

Every script of the package reads runs through this module and nothing else parses a row's name.
A row is the dict Google Benchmark wrote (its counters under their names), with attributes:

    family      "PointerChase"            the family that registered it
    case        "direct"                  the rest of its registered name ("" for none)
    registered  "PointerChase/direct"
    args        {"bytes": 16384, "stride": 128}   typed (int, else float, else str)
    gpu         0, 1, ... in a run over several GPUs; None in a one-GPU run or for host rows
    error       the error message of a failed or interrupted row, else None
    skipped     the reason of a skipped row, else None

gpubench writes each row's family, case, arguments and GPU into the row (`gpubench`), and the table
of every counter a row can carry into the report (`gpubench.counters`). Runs from before that carry
neither; their names are parsed here, in `parse_name`, the one place that does.
"""
import gzip
import json
import os
import re

from analysis.model.values import short

# Suffixes Google Benchmark appends after a row's arguments: not arguments of the experiment.
BENCHMARK_SUFFIX_KEYS = {"min_time", "min_warmup_time", "iterations", "repeats"}
TIME_SUFFIXES = {"manual_time", "real_time", "process_time"}
GPU_TAG = re.compile(r"^gpu:(\d+)$")
EFFORT_SUFFIX = re.compile(r"/(?:iterations|min_time|repeats):[^/]+")
SCHEMAS = (1, 2)  # 2: rows name their results ("results"), the catalog gives each counter its role
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
        self.full_name = raw.get("run_name", raw.get("name", ""))  # as written: GPU tag kept
        # The row's identity whatever effort measured it: Google Benchmark names a row /iterations:1 under the
        # stopping rule and /min_time:0.100 with a min time of its own; two runs pair by this.
        self.key = EFFORT_SUFFIX.sub("", self.full_name)
        self.precision = described.get("precision") if isinstance(described, dict) else None
        if self.gpu is not None:
            tag = f"/gpu:{self.gpu}"
            for field in ("name", "run_name"):
                if field in self:
                    self[field] = self[field].replace(tag, "", 1)
        self.error = raw.get("error_message", "error") if raw.get("error_occurred") else None
        self.skipped = raw.get("skip_message", "skipped") if raw.get("skipped") else None
        if self.error and self.error.startswith("skipped: "):  # Google Benchmark 1.7 has no skip: gpubench's error
            self.error, self.skipped = None, self.error[len("skipped: "):]
        self.aggregate = raw.get("run_type") == "aggregate"

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
        by_cycles = quantity.startswith("cycles") or (by_spans and per_clock(quantity))
        key = "cycles_spread" if by_cycles and "cycles_spread" in self else "time_spread"
        return float(self[key]) if key in self else None

    def half_width(self, quantity):
        """The 95% half-width of a result, relative to its value, as the row's sampling stated it (the stopping
        rule's batch means; gpubench.precision.intervals), or None: a run from before intervals, a result not read
        from the timed launches (a sweep's median, an energy window), or a quantity that is not a result."""
        intervals = (self.precision or {}).get("intervals") or {}
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


class Report:
    """The rows and context of one run (or several merged), for one GPU or for all of them."""

    def __init__(self, context, rows, counter_table=None, gpu=None, sources=()):
        self.context = context
        self.all_rows = rows
        self.counter_table = counter_table or {}
        self.gpu = gpu
        self.sources = list(sources)

    # -- selection -----------------------------------------------------------------------------
    def rows(self, prefix="", metric=None, **args):
        """The finished rows registered as `prefix` or below it (all with ""), that carry `metric` when
        given and whose arguments equal `args` (compared as numbers where both are)."""
        chosen = []
        for row in self.all_rows:
            if not row.ok or (prefix and not row.matches(prefix)) or (metric and metric not in row):
                continue
            if all(key in row.args and _same(row.args[key], want) for key, want in args.items()):
                chosen.append(row)
        return chosen

    def failed(self, prefix=""):
        """Rows that ended in an error (or were interrupted), registered as `prefix` or below it."""
        return [r for r in self.all_rows if r.error and (not prefix or r.matches(prefix))]

    def has_gpu(self):
        return bool(self.context.get("gpu_name"))

    # -- counters ------------------------------------------------------------------------------
    def describe(self, counter):
        """The run's description of a counter ({"unit", "meaning", "kind", ...}), or None."""
        return self.counter_table.get(counter)

    def fixed_counters(self):
        """Counters the code and its inputs fix (instructions, conflicts, bytes): any change is a change
        of the code, by the run's own table."""
        return {name for name, spec in self.counter_table.items() if spec.get("kind") == "fixed"}

    # -- several GPUs --------------------------------------------------------------------------
    def devices(self):
        """[(gpu, Report)] in run order: each GPU's rows and context (its /gpu:N keys as plain keys) with
        the host rows. A one-GPU run: [(None, self)]."""
        listed = self.context.get("gpubench_devices")
        if not listed:
            return [(None, self)]
        parts = []
        for gpu in (int(g) for g in str(listed).split(",")):
            tag = f"/gpu:{gpu}"
            own = {k: v for k, v in self.context.items() if not re.search(r"/gpu:\d+$", k)}
            own.update({k[:-len(tag)]: v for k, v in self.context.items() if k.endswith(tag)})
            rows = [r for r in self.all_rows if r.gpu is None or r.gpu == gpu]
            parts.append((gpu, Report(own, rows, self.counter_table, gpu, self.sources)))
        return parts


def per_clock(quantity):
    """Whether a quantity (a counter, or a card value's unit) is counted per SM clock: cycles, a rate per clock,
    a fraction of a peak at the measured clock, a ratio of cycles. A change of clock does not move it."""
    return quantity.startswith("cycles") or quantity == "slowdown" or any(
        word in quantity for word in ("clock", "clk", "peak"))


def _legacy_results(raw):
    found = {}
    for key in raw:
        for prefix, better in LEGACY_RESULTS:
            if key == prefix or (prefix.endswith("_") and key.startswith(prefix)):
                found[key] = better
    return found or {"time": "lower"}


def _same(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


def read_json(path):
    """One gpubench JSON file as a dict, or ReportError saying in one line why not."""
    data = read_json_object(path, "not a Google Benchmark report (no 'context' and 'benchmarks')")
    if not isinstance(data.get("benchmarks"), list) or not isinstance(data.get("context"), dict):
        raise ReportError(f"{path}: valid JSON but not a Google Benchmark report (no 'context' and 'benchmarks')")
    context = data["context"]
    block = data.get("gpubench")
    schema = block.get("schema", 1) if isinstance(block, dict) else 1
    if schema not in SCHEMAS:
        raise ReportError(f"{path}: written by a gpubench of report schema {schema}; this analysis reads schemas "
                          f"{', '.join(map(str, SCHEMAS))} (use the analysis of the gpubench that wrote it)")
    if not any(k.startswith(("gpu_", "gpubench_")) for k in context):
        raise ReportError(f"{path}: a Google Benchmark report, but not gpubench's (its context has no gpu_ or "
                          "gpubench_ keys)")
    return data


def read_json_object(path, not_an_object="not a JSON object"):
    """A JSON file holding an object (a run, a card), or ReportError saying in one line why not."""
    if os.path.isdir(path):
        raise ReportError(f"{path}: is a directory, not a gpubench JSON file")
    try:
        if path.endswith(".gz"):  # committed results are kept compressed
            with gzip.open(path, "rt", encoding="utf-8") as f:
                text = f.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror or e}") from None
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError):
        raise ReportError(f"{path}: not a text file, not a gpubench JSON report") from None
    if not text.strip():
        raise ReportError(f"{path}: empty file, not a gpubench JSON report")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}: not valid JSON (truncated or damaged?): {e.msg} at line {e.lineno}") from None
    if not isinstance(data, dict):
        raise ReportError(f"{path}: valid JSON but {not_an_object}")
    return data


def counter_table_of(data):
    table = data.get("gpubench", {}).get("counters", []) if isinstance(data.get("gpubench"), dict) else []
    return {entry["name"]: entry for entry in table if isinstance(entry, dict) and "name" in entry}


def load(paths):
    """One Report of every row of `paths` (merged; the first context that has one wins)."""
    if isinstance(paths, str):
        paths = [paths]
    return merge([load_one(path) for path in paths])


MEASURED_AGAIN = "gpubench_measured_again"  # a verdict's second measurement, kept in the run's JSON


def load_one(path):
    data = read_json(path)
    report = Report(data["context"], [Row(raw) for raw in data["benchmarks"] if isinstance(raw, dict)],
                    counter_table_of(data), sources=[path])
    again = data.get(MEASURED_AGAIN)
    if isinstance(again, dict) and isinstance(again.get("benchmarks"), list):
        # The saved run judged as the live verdict was: the first readings stay in "benchmarks".
        report = replaced(report, [Row(raw) for raw in again["benchmarks"] if isinstance(raw, dict)],
                          again.get("families", []), again.get("gpus", []))
    return report


def replaced(report, fresh_rows, families, gpus):
    """`report` with the rows of `families` on `gpus` (every GPU when empty) replaced by `fresh_rows`, a second
    measurement of them (the other GPUs' rows kept as they were)."""
    redone = set(gpus) if gpus else {None}
    fresh = []
    for row in fresh_rows:
        if gpus and len(gpus) == 1 and row.gpu is None:
            row.gpu = gpus[0]  # one GPU asked for: its rows come back untagged
        if not gpus or row.gpu in redone:
            fresh.append(row)
    kept = [row for row in report.all_rows if row.family not in families or (gpus and row.gpu not in redone)]
    out = Report(report.context, kept + fresh, report.counter_table, sources=report.sources)
    out.measured_again = {"families": list(families), "gpus": list(gpus),
                          "benchmarks": [dict(row) for row in fresh_rows]}
    return out


INTERRUPTED = "interrupted"  # gpubench's error for the rows a Ctrl-C (or a deadline) left unrun


def merge(reports):
    """Several runs' rows as one report: the first non-empty context, every counter described. A row
    interrupted in one run and run in another (a long preset resumed from where it stopped) is the run one."""
    table = {}
    for report in reports:
        for name, entry in report.counter_table.items():
            table.setdefault(name, entry)
    context = next((r.context for r in reports if r.context), {})
    rows = [row for r in reports for row in r.all_rows]
    ran = {row.key for row in rows if row.error != INTERRUPTED}
    rows = [row for row in rows if row.error != INTERRUPTED or row.key not in ran]
    return Report(context, rows, table, sources=[s for r in reports for s in r.sources])


def from_dict(data):
    """A Report of an in-memory report dict (tests and synthetic runs)."""
    return Report(data.get("context", {}), [Row(raw) for raw in data.get("benchmarks", [])], counter_table_of(data))
