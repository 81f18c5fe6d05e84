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

from analysis.model import archive
from analysis.model.row import ReportError, Row, parse_name, per_clock

SCHEMAS = (1, 2)  # 2: rows name their results ("results"), the catalog gives each counter its role
# The model's names, the row's included: every script reads runs through this module.
__all__ = ["Report", "ReportError", "Row", "parse_name", "per_clock", "read_json", "read_json_object", "load",
           "load_one", "merge", "replaced", "from_dict", "counter_table_of", "MEASURED_AGAIN", "INTERRUPTED"]


class Report:
    """The rows and context of one run (or several merged), for one GPU or for all of them."""

    def __init__(self, context, rows, counter_table=None, gpu=None, sources=()):
        self.context = context
        self.all_rows = rows
        self.counter_table = counter_table or {}
        self.gpu = gpu
        self.sources = list(sources)
        # {"families", "gpus", "benchmarks"}: a verdict measured these again and its second reading replaced the
        # first in `all_rows` (replaced()); None when nothing was.
        self.measured_again = None

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
            part = Report(own, rows, self.counter_table, gpu, self.sources)
            part.measured_again = self.measured_again
            parts.append((gpu, part))
        return parts


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
        raw = archive.read(path)  # a file, or one inside a committed folder's raw.tar.xz
        text = (gzip.decompress(raw) if path.endswith(".gz") else raw).decode("utf-8")
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
    return merge([load_one(path) for path in archive.expand(paths)])


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
    # Rows of a family the second measurement did not run (a node's copies at once, beside the copies alone that
    # were measured again in a run of one GPU) stay as they were.
    again = {(row.gpu, row.registered) for row in fresh}
    kept = [row for row in report.all_rows if row.family not in families or (gpus and row.gpu not in redone)
            or ((row.gpu if gpus else None), row.registered) not in again and row.registered]
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
    ran = {row.identity for row in rows if row.error != INTERRUPTED}
    rows = [row for row in rows if row.error != INTERRUPTED or row.identity not in ran]
    merged = Report(context, rows, table, sources=[s for r in reports for s in r.sources])
    merged.measured_again = reports[0].measured_again if len(reports) == 1 else None
    return merged


def from_dict(data):
    """A Report of an in-memory report dict (tests and synthetic runs)."""
    return Report(data.get("context", {}), [Row(raw) for raw in data.get("benchmarks", [])], counter_table_of(data))
