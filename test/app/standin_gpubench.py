#!/usr/bin/env python3
"""A stand-in for gpubench on a GPU, for tests on a machine without one (the fleet recipe under Slurm, the
verdict's second measurement): it writes what gpubench writes there, the run's JSON (a committed GPU run,
$STANDIN_RUN: .json, .json.gz or a path through a results archive; only the rows --benchmark_filter selects) at --benchmark_out and its cards at
--gpubench_card (made by card.py, one per GPU and one for the host); with --gpubench_verdict, card.py's check
and gpubench's exit status for it (the second measurement aside)."""
import gzip
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)
from analysis.model import archive  # noqa: E402


def main():
    flags = dict(arg[2:].split("=", 1) for arg in sys.argv[1:] if arg.startswith("--") and "=" in arg)
    out, card = flags.get("benchmark_out"), flags.get("gpubench_card")
    run = os.environ["STANDIN_RUN"]
    if not out:
        print("standin: no --benchmark_out", file=sys.stderr)
        return 2
    preset = flags.get("gpubench_preset", "quick")
    raw = archive.read(run)
    raw = gzip.decompress(raw) if run.endswith(".gz") else raw
    data = json.loads(raw)
    ran = data["context"].get("gpubench_preset", "quick")
    if ran != preset:  # what gpubench writes for that preset, or nothing
        print(f"standin: asked for the {preset} preset; STANDIN_RUN is a run of the {ran} preset", file=sys.stderr)
        return 2
    if "benchmark_filter" in flags:
        data["benchmarks"] = [r for r in data["benchmarks"] if re.search(flags["benchmark_filter"], r["name"])]
        with open(out, "w") as f:
            json.dump(data, f)
    else:
        with open(out, "wb") as f:
            f.write(raw)
    if card and card != "none":
        check = ["--check"] if "--gpubench_verdict" in sys.argv else []
        done = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "card.py"), out, "--out", card, *check],
                              capture_output=True, text=True)
        if check:  # the verdict's lines and exit status, as gpubench --gpubench_verdict gives them
            sys.stderr.write(done.stderr)
            from analysis.verdict import table
            return done.returncode if done.returncode in table.NAME_OF else 4
        done.check_returncode()
    return 0


if __name__ == "__main__":
    sys.exit(main())
