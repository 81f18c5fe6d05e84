#!/usr/bin/env python3
"""Compare two gpubench runs by their times and their counters (cycles, L2/DRAM bytes, bank conflicts,
instructions, ...), not by time alone: a change that doubles L2 traffic at equal time shows.

    compare.py BEFORE.json AFTER.json [--filter REGEX] [--counters REGEX] [--threshold PCT]
               [--format console|md] [--allow-different-devices] [--alpha 0.05]

For every benchmark in both runs (matched by name) and every quantity in both (the time, and each
user counter), it prints before, after and the relative change. With repetitions on both sides
(--benchmark_repetitions), a Mann-Whitney U test per quantity says whether the change is significant
(needs scipy, as Google Benchmark's compare.py does). Counters a kernel fixes (instructions, conflicts,
sectors, L2 bytes, registers) are flagged on any change past --exact-tolerance even from single runs.
Exit status: 0, or 1 when --threshold is given and a chosen quantity moved by more than it; 2 when the
runs come from different GPUs (unless allowed) or cannot be read.
"""
import argparse
import json
import re
import statistics
import sys

# Counters that the kernel and its launch fix: any change is a change of the code or its inputs.
EXACT = re.compile(r"^(inst_executed|thread_inst_executed|active_lanes_per_inst|.*bank_conflicts|conflicts_per_load|"
                   r"shared_wavefronts|global_load_(sectors|requests)|sectors_per_request|l2_(read|write)_bytes|"
                   r"regs_per_thread|spill_bytes|blocks_per_sm|theoretical_occupancy)$")
# Fields of a Google Benchmark row that are bookkeeping, not measurements.
NOT_QUANTITIES = {"iterations", "repetitions", "repetition_index", "threads", "family_index",
                  "per_family_instance_index", "real_time", "cpu_time", "clock_flagged"}
CONTEXT_KEYS = [("GPU", "gpu_name"), ("SM clock (MHz, measured)", "gpu_sm_clock_mhz_measured"),
                ("driver", "cuda_driver_version"), ("counters", "gpubench_counters"), ("cold L2", "gpubench_cold_l2"),
                ("preset", "gpubench_preset"), ("Google Benchmark build", "library_build_type"), ("date", "date")]
TIME_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    with open(path) as f:
        report = json.load(f)
    runs = {}
    for row in report.get("benchmarks", []):
        if row.get("run_type") == "aggregate" or row.get("error_occurred"):
            continue
        name = row.get("run_name", row["name"])
        samples = runs.setdefault(name, {})
        samples.setdefault("time_ns", []).append(float(row["real_time"]) * TIME_SCALE.get(row.get("time_unit", "ns"), 1))
        for key, value in row.items():
            if key not in NOT_QUANTITIES and isinstance(value, (int, float)) and not isinstance(value, bool):
                samples.setdefault(key, []).append(float(value))
    return report.get("context", {}), runs


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


def compare(before_runs, after_runs, name_filter, counter_filter, threshold, exact_tolerance, alpha):
    rows, over = [], []
    for name in before_runs:
        if name not in after_runs or not re.search(name_filter, name):
            continue
        b, a = before_runs[name], after_runs[name]
        for quantity in [q for q in b if q in a and (q == "time_ns" or re.search(counter_filter, q))]:
            before, after = statistics.median(b[quantity]), statistics.median(a[quantity])
            change = (after - before) / abs(before) if before != 0 else (0.0 if after == 0 else float("inf"))
            flags = []
            if EXACT.match(quantity) and abs(change) > exact_tolerance:
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
    try:
        (before_context, before_runs), (after_context, after_runs) = load(args.before), load(args.after)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare.py: cannot read the runs: {e}", file=sys.stderr)
        return 2

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

    rows, over = compare(before_runs, after_runs, args.filter, args.counters, args.threshold, args.exact_tolerance,
                         args.alpha)
    print(render(rows, args.format, args.changed_only))
    only_before = sorted(n for n in before_runs if n not in after_runs and re.search(args.filter, n))
    only_after = sorted(n for n in after_runs if n not in before_runs and re.search(args.filter, n))
    for label, names in (("only in BEFORE", only_before), ("only in AFTER", only_after)):
        if names:
            print(f"\n{label} ({len(names)}): " + ", ".join(names))
    if not any(len(v) > 1 for runs in (before_runs, after_runs) for s in runs.values() for v in s.values()):
        print("\nsignificance: no repetitions (run both with --benchmark_repetitions=N to test)")
    flagged = sum(1 for r in rows if r["flags"])
    print(f"\n{len({r['benchmark'] for r in rows})} benchmarks, {len(rows)} quantities compared, {flagged} flagged"
          + (f"; {len(over)} moved more than {args.threshold:g}%" if args.threshold is not None else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
