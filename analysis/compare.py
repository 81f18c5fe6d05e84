#!/usr/bin/env python3
"""Did my change make it slower? Two gpubench runs compared row by row, with a verdict per result that knows
the noise: slower, faster, same or ambiguous.

    compare.py BEFORE.json AFTER.json [--threshold PCT] [--filter REGEX] [--diagnostics] [--all]
               [--format console|md] [--allow-different-devices] [--noise FILE]

What is judged: each row's result quantities (the row names them, with the direction that is better: e.g.
bytes_per_second higher, cycles_per_load lower) whose family declares their class of measurement
(analysis/cards/noise.py), and the counters the catalog calls fixed that runs of identical code on several boards and
SKUs proved fixed (instructions, conflicts, bytes: any change is a change of the code). A row with no declared
result is not judged by its raw time. Diagnostics (a bandwidth kernel's block-0 clock64 span, DRAM bytes of a
row whose data sits in L2, hit rates, counters not proven fixed, host rows) are shown with --diagnostics, never
judged.

A change is judged against the class's calibrated floor in this scope (run to run when both runs are of one board,
by gpu_uuid; board to board otherwise: analysis/cards/noise_model.json, which holds on any GPU). Rows measured under the
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
import os
import sys

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import cli  # noqa: E402
from analysis.cards import noise  # noqa: E402
from analysis.comparing.comparison import (CLOCK_TOLERANCE, Side, compare_rows, host_row, judge,  # noqa: E402
                                 load, names_another_gpu, node_only, own_rows, sides_of)

# Built here from analysis/comparing/comparison.py's data, rendered here; the names other scripts read are these.
__all__ = ["CLOCK_TOLERANCE", "Side", "compare_rows", "host_row", "judge", "load", "render", "run_compare", "sides_of"]

CONTEXT_KEYS = [("GPU", "gpu_name"), ("board", "gpu_uuid"), ("SM clock (MHz, measured)", "gpu_sm_clock_mhz_measured"),
                ("driver", "cuda_driver_version"), ("counters", "gpubench_counters"), ("cold L2", "gpubench_cold_l2"),
                ("preset", "gpubench_preset"), ("date", "date")]


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


def measured_again_lines(label, report):
    """What a run's verdict measured again, and that compare judges that second reading (load_one puts it in place
    of the first): [] when nothing was."""
    again = report.measured_again
    if not again or not again.get("families"):
        return []
    gpus = again.get("gpus") or []
    where = f" on GPU {', '.join(map(str, gpus))}" if gpus else ""
    return [f"{label}: {', '.join(again['families'])}{where} measured again for the verdict: the second reading is "
            "judged (the one the verdict read)"]


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
    """Everything main() prints, as data: (status, context lines, entries, problems and what was said of rows on one
    side only, summary, slower, changed, the problems that fail)."""
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
    skipped = ({}, {})  # {name: why} of the rows each run skipped (a set past the GPU's free memory, say)
    pairs = picked_devices(before_report, after_report, picks) if picks else \
        paired_devices(before_report, after_report, allow_different)
    for gpu, b_part, a_part in pairs:
        # A node's part: its GPU's rows (the host rows are the one-GPU run's). Rows pair by their key, whatever GPU
        # index (--gpu N:M) or reading (first, or measured again for a verdict) they came from; a node pair's are
        # named with their GPU.
        b_sides, _ = sides_of(own_rows(b_part), None if picks else gpu)
        a_sides, _ = sides_of(own_rows(a_part), None if picks else gpu)
        b_sides = {n: s for n, s in b_sides.items() if name_filter.search(n)}
        a_sides = {n: s for n, s in a_sides.items() if name_filter.search(n)}
        before.update(b_sides)
        after.update(a_sides)
        for kept, part in zip(skipped, (b_part, a_part)):
            kept.update({row.display_name(None if picks else gpu): row.skipped for row in own_rows(part)
                         if row.skipped and not row.aggregate})
        where = noise.scope(b_part.context.get("gpu_uuid"), a_part.context.get("gpu_uuid"))
        scopes.append(where)
        entries += compare_rows(b_sides, a_sides, model, where, diagnostics, fixed, b_part.context)
    problems = []
    for side, errors, other in (("BEFORE", before_failed, after), ("AFTER", after_failed, before)):
        for name, error in sorted(errors.items()):
            if name_filter.search(name):
                problems.append(f"failed in {side}: {name}: {error}")
    # Said, not failed: host rows that only one host has (a sweep up to its cores), and with --gpu the links and peer
    # chases of one side only (a GPU alone measures its own pairs; a node gives each pair to one of its two GPUs).
    # A row the other run skipped is said with its reason: a skip is the run's choice (a set past the memory a node's
    # peers left free, x4j), not a failure.
    said = {"host": [], "link": [], "node": [], "skipped": []}
    for label, mine, theirs, their_failed, their_skipped in (
            ("only in BEFORE", before, after, after_failed, skipped[1]),
            ("only in AFTER", after, before, before_failed, skipped[0])):
        for name in sorted(n for n in mine if n not in theirs and n not in their_failed):
            if name in their_skipped:
                said["skipped"].append(f"{label} (the other run skipped it: {their_skipped[name]}): {name}")
            elif host_row(mine[name].rows[0]):
                said["host"].append(f"{label} (a host row: the hosts differ): {name}")
            elif picks and names_another_gpu(mine[name].rows[0]):
                said["link"].append(f"{label} (a link: the runs' pairs differ): {name}")
            elif node_only(mine[name].rows[0]):
                said["node"].append(f"{label} (a node's row: every GPU of a node at once): {name}")
            else:
                problems.append(f"{label}: {name}")
    judged = [e for e in entries if e["role"] != "diagnostic"]
    if not judged:
        unclassed = sorted({side.rows[0].family for side in before.values()
                            if side.rows and not any(noise.class_of(side.rows[0], q) for q in side.rows[0].results)})
        ours = [f for f in unclassed if f in noise.declarations()]
        theirs = [f for f in unclassed if f not in noise.declarations()]
        hint = ""
        if ours:  # the burn, the memory test: minutes-long readings their own verdict judges
            hint += f"; the rows of {', '.join(ours)} have no class of measurement: compare shows them and judges none"
        if theirs:
            hint += (f"; the rows of {', '.join(theirs)} declare no class of measurement: declare one "
                     "(gpubench::noise_class in the registration, or --class FAMILY=CLASS)")
        raise cli.UsageError("nothing compared: no row of the one run (after --filter) has a measured twin in the other"
                             + (f" ({len(problems)} failed or missing)" if problems else "") + hint)
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
               (f"; {len(problems)} row(s) failed or missing on one side" if problems else "") +
               "".join(f"; {len(said[what])} {what} row(s) on one side only ({why})"
                       for what, why in (("host", "the hosts differ"), ("link", "the runs' pairs differ"),
                                         ("node", "only a node copies with every GPU at once"),
                                         ("skipped", "the other run skipped it")) if said[what]))
    status = 0
    if threshold is not None and (slower or changed or problems):
        status = 1
    context = [(label, str(before_report.context.get(key, "-")), str(after_report.context.get(key, "-")))
               for label, key in CONTEXT_KEYS]
    readings = measured_again_lines("BEFORE", before_report) + measured_again_lines("AFTER", after_report)
    notes = problems + said["host"] + said["link"] + said["node"] + said["skipped"] + readings
    return status, context, entries, notes, summary, slower, changed, problems


def blind_at(entries, threshold):
    """The judged results whose floor is above `threshold` percent, widest first: compare cannot see a change of the
    threshold on them (a chase at a capacity edge, a row at two levels)."""
    found = [e for e in entries if e["role"] == "result" and e["tolerance"] is not None
             and e["tolerance"] * 100 > threshold]
    return sorted(found, key=lambda e: -e["tolerance"])


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
    parser.add_argument("--class", dest="classes", action="append", default=[], metavar="FAMILY[/QUANTITY]=CLASS",
                        help="judge a family gpubench has no rules for (a kernel of your own) as this class of "
                             "measurement: " + ", ".join(noise.CLASSES) + " (docs/your-kernel.md)")
    args = parser.parse_args()
    for spec in args.classes:
        try:
            noise.declare_class(spec)
        except ValueError as e:
            raise cli.UsageError(str(e))
    if args.threshold is not None and not 0 <= args.threshold < float("inf"):
        raise cli.UsageError(f"--threshold {args.threshold}: give a percentage of 0 or more")
    picks = None
    if args.gpu is not None:
        first, _, second = args.gpu.partition(":")
        if not first.isdigit() or (second and not second.isdigit()):
            parser.error(f"--gpu {args.gpu}: give N or N:M (GPU indices)")
        picks = (int(first), int(second or first))
    status, context, entries, problems, summary, slower, changed, failing = run_compare(
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
    blind = blind_at(entries, args.threshold) if args.threshold is not None else []
    if blind:
        print(f"\n{len(blind)} judged result(s) have a calibrated floor above {args.threshold:g}%: a change that small "
              f"is inside their own run-to-run noise (--all shows their floors), e.g. "
              + "; ".join(f"{e['benchmark']} {e['quantity']} (floor {e['tolerance']:.1%})" for e in blind[:3]))
    print(f"\n{summary}")
    if status:
        reasons = [f"{e['verdict']}: {e['benchmark']} {e['quantity']} {e['change']:+.1%}" for e in slower[:10]]
        reasons += [f"fixed counter changed: {e['benchmark']} {e['quantity']} {e['change']:+.2%}" for e in changed[:10]]
        reasons += failing[:10]
        print("compare.py: FAIL: " + "; ".join(reasons), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(cli.main(main))
