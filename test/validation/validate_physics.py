#!/usr/bin/env python3
"""GPU validation: does each experiment show the physics it exists to show? Wide margins on purpose:
this catches a broken experiment (a merged branch, an optimized-away chain), not a slow GPU.

Runs gpubench (or reads a JSON it wrote) and checks each family present: the checks are each family module's
`physics` (analysis/cards/families/, found as the card's rules are; analysis/cards/physics.py). Exit 0 all pass, 1 a check
failed, 77 no GPU (skipped)."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from analysis.model import cli  # noqa: E402
from analysis.cards import physics  # noqa: E402

SKIP = 77


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gpubench", help="gpubench binary to run")
    parser.add_argument("--json", nargs="+", help="check these gpubench JSON files (merged) instead of running")
    parser.add_argument("--out", help="where a fresh run writes its JSON", default="validation.json")
    parser.add_argument("--filter", help="rows a fresh run measures (default: every family with physics checks)")
    args = parser.parse_args()
    if args.filter is None:
        args.filter = "|".join(f"^{family}/" for module in physics.modules() for family in module.FAMILIES)

    if args.json:
        paths = args.json
    elif args.gpubench:
        path = args.out
        paths = [path]
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

    try:
        run = cli.load(paths)
    except cli.UsageError as e:
        return cli.fail(str(e))
    results = []
    for gpu, report in run.devices():  # several GPUs: each in turn
        results += [(name if gpu is None else f"gpu:{gpu} {name}", ok, detail)
                    for name, ok, detail in physics.check(report)]
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
