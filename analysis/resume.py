#!/usr/bin/env python3
"""The rows a stopped run did not run (its `interrupted` rows), as a --benchmark_filter that selects exactly them.
Run them into a second file with the same preset; every analysis script reads the two files as one run.

    gpubench --gpubench_preset=full --benchmark_out=first.json          # Ctrl-C, a deadline, a lost node
    gpubench --gpubench_preset=full --benchmark_out=second.json \\
        --benchmark_filter="$(python3 analysis/resume.py first.json)"
    python3 analysis/card.py first.json second.json --out full

Exits 1 with a line on stderr when every row ran (an empty filter would select the whole preset).
"""
import argparse
import os
import re
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import cli  # noqa: E402
from analysis.model import report as report_model  # noqa: E402
from analysis.model import row as row_model  # noqa: E402

# Characters special to the extended regular expressions Google Benchmark matches names with.
REGEX_SPECIAL = re.compile(r"([.\[\]{}()\\*+?^$|])")


def unrun(report):
    """The names (as run, GPU tag kept) of the rows no file ran, in run order, each once."""
    return list(dict.fromkeys(row.name_as_run for row in report.all_rows
                              if row.error == report_model.INTERRUPTED and not row.aggregate))


# How the effort was set names a row too (/min_time:0.100 for a host row under the stopping rule, /iterations:N):
# the filter takes each row whatever effort the resuming run uses.
EFFORT = "(/(min_time|iterations|repeats):[^/]+)*"


def name_filter(names):
    patterns = []
    for name in names:
        head, slash, tail = name.rpartition("/")
        if slash and tail in row_model.TIME_SUFFIXES:
            patterns.append(REGEX_SPECIAL.sub(r"\\\1", head) + EFFORT + "/" + tail)
        else:
            patterns.append(REGEX_SPECIAL.sub(r"\\\1", name) + EFFORT)
    return "^(" + "|".join(patterns) + ")$"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="the stopped run, and any resumed parts of it")
    args = parser.parse_args()
    names = unrun(cli.load(args.json))
    if not names:
        print(f"{cli.script()}: every row of {' '.join(args.json)} ran; nothing to resume", file=sys.stderr)
        return 1
    print(name_filter(names))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
