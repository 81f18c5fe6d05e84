#!/usr/bin/env python3
"""Compare two gpubench runs by their times and their counters (cycles, L2/DRAM bytes, bank conflicts,
instructions, ...), not by time alone: a change that doubles L2 traffic at equal time shows.

    compare.py BEFORE.json AFTER.json [--filter REGEX] [--counters REGEX] [--threshold PCT]
               [--format console|md] [--allow-different-devices] [--alpha 0.05]

For every benchmark in both runs (matched by name) and every quantity in both (the time, and each
user counter), it prints before, after and the relative change. With repetitions on both sides
(--benchmark_repetitions), a Mann-Whitney U test per quantity says whether the change is significant
(needs scipy, as Google Benchmark's compare.py does). Counters the code fixes (instructions, conflicts,
sectors, L2 bytes, registers: kind "fixed" in the counter table the runs carry) are flagged on any change
past --exact-tolerance even from single runs.
Exit status: 0; 1 when --threshold is given and a chosen quantity moved by more than it, or a benchmark
failed or is missing on one side; 2 when the runs come from different GPUs (unless allowed) or cannot
be read.
"""
import argparse
import os
import statistics
import sys

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis import cli  # noqa: E402
# Fields of a Google Benchmark row that are bookkeeping, not measurements.
NOT_QUANTITIES = {"iterations", "repetitions", "repetition_index", "threads", "family_index",
                  "per_family_instance_index", "real_time", "cpu_time", "clock_flagged",
                  "power_capped", "thermal_capped", "clock_reasons"}
CONTEXT_KEYS = [("GPU", "gpu_name"), ("SM clock (MHz, measured)", "gpu_sm_clock_mhz_measured"),
                ("driver", "cuda_driver_version"), ("counters", "gpubench_counters"), ("cold L2", "gpubench_cold_l2"),
                ("preset", "gpubench_preset"), ("Google Benchmark build", "library_build_type"), ("date", "date")]
TIME_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    """(context, {benchmark: {quantity: samples}}, {benchmark: error}, counter table) of one run. Benchmarks
    keep their full names (GPU tags too), so two runs over several GPUs pair GPU by GPU."""
    report = cli.load(path)
    runs, failed = {}, {}
    for row in report.all_rows:
        if row.aggregate:
            continue
        name = row.full_name
        if row.error:
            failed[name] = row.error
            continue
        if row.skipped:
            continue
        samples = runs.setdefault(name, {})
        samples.setdefault("time_ns", []).append(float(row["real_time"]) * TIME_SCALE.get(row.get("time_unit", "ns"), 1))
        for key, value in row.items():
            if key not in NOT_QUANTITIES and isinstance(value, (int, float)) and not isinstance(value, bool):
                samples.setdefault(key, []).append(float(value))
    return report.context, runs, failed, report.counter_table


MIN_REPETITIONS = 4  # with 3 a side, a two-sided U test cannot go below p = 0.10


def significance(before, after, alpha):
    """'yes'/'no' from a two-sided Mann-Whitney U test, or why there is none."""
    if len(before) < 2 or len(after) < 2:
        return "-"
    if len(set(before)) == 1 and len(set(after)) == 1:
        return "not resampled"  # e.g. hardware counters: profiled once per case, repeated in every repetition
    if min(len(before), len(after)) < MIN_REPETITIONS:
        return f"too few ({min(len(before), len(after))} < {MIN_REPETITIONS})"
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        return "no scipy"
    p = mannwhitneyu(before, after, alternative="two-sided").pvalue
    return f"{'yes' if p < alpha else 'no'} (p={p:.3f})"


def compare(before_runs, after_runs, name_filter, counter_filter, threshold, exact_tolerance, alpha, fixed=()):
    rows, over = [], []
    for name in before_runs:
        if name not in after_runs or not name_filter.search(name):
            continue
        b, a = before_runs[name], after_runs[name]
        for quantity in [q for q in b if q in a and (q == "time_ns" or counter_filter.search(q))]:
            before, after = statistics.median(b[quantity]), statistics.median(a[quantity])
            change = (after - before) / abs(before) if before != 0 else (0.0 if after == 0 else float("inf"))
            flags = []
            if quantity in fixed and abs(change) > exact_tolerance:
                flags.append("exact counter changed")
            if threshold is not None and abs(change) * 100 > threshold:
                flags.append(f"over {threshold:g}%")
                over.append((name, quantity))
            rows.append({"benchmark": name, "quantity": quantity, "before": before, "after": after, "change": change,
                         "significant": significance(b[quantity], a[quantity], alpha), "flags": ", ".join(flags)})
    return rows, over


def number(value):
    return f"{value:.6g}"


def render(rows, fmt, changed_only):
    shown = [r for r in rows if not changed_only or r["change"] != 0 or r["flags"]]
    header = ["benchmark", "quantity", "before", "after", "change", "significant", "flags"]
    cells = [[r["benchmark"], r["quantity"], number(r["before"]), number(r["after"]),
              "inf" if r["change"] == float("inf") else f"{r['change']:+.2%}", r["significant"], r["flags"]]
             for r in shown]
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * 3 + "---|---|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(lines)
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--filter", default=".", help="benchmarks whose name matches this regex")
    parser.add_argument("--counters", default=".", help="counters whose name matches this regex (time is always compared)")
    parser.add_argument("--threshold", type=float, help="exit 1 when a compared quantity moved by more than PCT percent")
    parser.add_argument("--exact-tolerance", type=float, default=0.005,
                        help="relative change above which a fixed counter is flagged (default 0.5%%)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of the U test")
    parser.add_argument("--format", choices=["console", "md"], default="console")
    parser.add_argument("--changed-only", action="store_true", help="leave out quantities that did not change")
    parser.add_argument("--allow-different-devices", action="store_true")
    args = parser.parse_args()
    name_filter, counter_filter = cli.regex(args.filter, "--filter"), cli.regex(args.counters, "--counters")
    before_context, before_runs, before_failed, before_table = load(args.before)
    after_context, after_runs, after_failed, after_table = load(args.after)
    table = {**after_table, **before_table}
    fixed = {name for name, spec in table.items() if spec.get("kind") == "fixed"}

    md = args.format == "md"
    print(("| | before | after |\n|---|---|---|" if md else f"{'':26}{'before':34}after"))
    for label, key in CONTEXT_KEYS:
        b, a = str(before_context.get(key, "-")), str(after_context.get(key, "-"))
        print(f"| {label} | {b} | {a} |" if md else f"{label:26}{b:34}{a}")
    print()
    if before_context.get("gpu_name") != after_context.get("gpu_name") and not args.allow_different_devices:
        print(f"compare.py: the runs come from different GPUs ({before_context.get('gpu_name')} and "
              f"{after_context.get('gpu_name')}); pass --allow-different-devices to compare them anyway", file=sys.stderr)
        return 2

    rows, over = compare(before_runs, after_runs, name_filter, counter_filter, args.threshold, args.exact_tolerance,
                         args.alpha, fixed)
    print(render(rows, args.format, args.changed_only))
    failed = {side: {n: e for n, e in errors.items() if name_filter.search(n)}
              for side, errors in (("BEFORE", before_failed), ("AFTER", after_failed))}
    for side, errors in failed.items():
        if errors:
            print(f"\nfailed in {side} ({len(errors)}): " + "; ".join(f"{n}: {e}" for n, e in sorted(errors.items())))
    only_before = sorted(n for n in before_runs if n not in after_runs and name_filter.search(n)
                         and n not in failed["AFTER"])
    only_after = sorted(n for n in after_runs if n not in before_runs and name_filter.search(n)
                        and n not in failed["BEFORE"])
    for label, names in (("only in BEFORE", only_before), ("only in AFTER", only_after)):
        if names:
            print(f"\n{label} ({len(names)}): " + ", ".join(names))
    if not table:
        print("\nneither run carries gpubench's counter table (runs from before it): counters the code fixes "
              "are not flagged")
    if not any(len(v) > 1 for runs in (before_runs, after_runs) for s in runs.values() for v in s.values()):
        print("\nsignificance: no repetitions (run both with --benchmark_repetitions=N to test)")
    flagged = sum(1 for r in rows if r["flags"])
    broken = sum(len(e) for e in failed.values()) + len(only_before) + len(only_after)
    print(f"\n{len({r['benchmark'] for r in rows})} benchmarks, {len(rows)} quantities compared, {flagged} flagged"
          + (f"; {len(over)} moved more than {args.threshold:g}%" if args.threshold is not None else "")
          + (f"; {broken} benchmark(s) failed or missing on one side" if broken else ""))
    if args.threshold is not None and broken:
        return 1  # a gate must not pass on rows that did not run
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
