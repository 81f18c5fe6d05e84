#!/usr/bin/env python3
"""GPU validation: does each experiment show the physics it exists to show? Wide margins on purpose:
this catches a broken experiment (a merged branch, an optimized-away chain), not a slow GPU.

Runs gpubench (or reads a JSON it wrote) and checks each family present. Exit 0 all pass, 1 a check
failed, 77 no GPU (skipped)."""
import argparse
import json
import re
import subprocess
import sys
from collections import defaultdict

SKIP = 77


def rows_by_name(report):
    """Mean over repetitions of every counter, keyed by benchmark run name."""
    values = defaultdict(lambda: defaultdict(list))
    for row in report["benchmarks"]:
        if row.get("run_type") == "aggregate" or row.get("error_occurred") or row.get("skipped"):
            continue
        for key, value in row.items():
            if isinstance(value, (int, float)):
                values[row["run_name"]][key].append(float(value))
    return {name: {k: sum(v) / len(v) for k, v in counters.items()} for name, counters in values.items()}


def check_divergence(rows):
    """N distinct paths in one warp serialize: slowdown ~ N (here within 30%)."""
    results = []
    for name, counters in sorted(rows.items()):
        match = re.match(r"Divergence/Paths/paths:(\d+)", name)
        if not match:
            continue
        paths = int(match.group(1))
        slowdown = counters["slowdown"]
        ok = 0.7 * paths <= slowdown <= 1.3 * paths
        results.append((name, ok, f"slowdown {slowdown:.3f}, expected {paths} +-30%"))
    return results


CHECKS = [check_divergence]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gpubench", help="gpubench binary to run")
    parser.add_argument("--json", help="check this gpubench JSON instead of running")
    parser.add_argument("--out", help="where a fresh run writes its JSON", default="validation.json")
    parser.add_argument("--filter", default="Divergence")
    args = parser.parse_args()

    if args.json:
        path = args.json
    elif args.gpubench:
        path = args.out
        status = subprocess.call([args.gpubench, f"--benchmark_filter={args.filter}", "--benchmark_repetitions=3",
                                  f"--benchmark_out={path}", "--benchmark_out_format=json"])
        if status == 1:
            print("validate_physics: skipped: no usable GPU (gpubench said why above)")
            return SKIP
        if status not in (0, 3):
            print(f"validate_physics: gpubench exited {status}")
            return 1
    else:
        parser.error("give --gpubench or --json")

    with open(path) as f:
        rows = rows_by_name(json.load(f))
    results = [r for check in CHECKS for r in check(rows)]
    if not results:
        print("validate_physics: no benchmark in the run has a physics check")
        return 1
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    failed = sum(not ok for _, ok, _ in results)
    print(f"validate_physics: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
