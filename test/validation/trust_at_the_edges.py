#!/usr/bin/env python3
"""Trust at the edges, from runs of identical code (docs/results/2026-11-27-trust): for each group of repeated runs
(one board and preset, or one node), every pair through compare.py as a user runs it (--threshold 2: its exit
status, its claimed changes, rows on one side only), the honesty of the stated precision the runs' JSON carries (per
class of measurement), and planted changes (2% on results stated to 0.5% or better, 5% on every result; in a node's
runs, on each GPU's).

    trust_at_the_edges.py NAME=RUN.json,RUN.json,... [NAME=...]   groups of repeated runs
    trust_at_the_edges.py --against NODE.json:ALONE0.json,ALONE1.json,...   each GPU alone against the node

A claim is a result called slower, faster, noisier or changed; "(clock)" verdicts (explained by the SM clock) are
counted apart.
"""
import argparse
import collections
import itertools
import json
import os
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analysis import compare  # noqa: E402
from analysis.cards import noise, stated  # noqa: E402
from analysis.model import archive  # noqa: E402
from analysis.model import report as report_model  # noqa: E402
import precision_calibration  # noqa: E402

CLAIMS = ("slower", "faster", "noisier", "changed")


def judged_pair(before, after, picks=None):
    """(exit status, judged results, {verdict: count}, rows on one side only) of compare.py --threshold 2."""
    status, _, entries, lines, _, _, _, problems = compare.run_compare(before, after, threshold=2.0, picks=picks)
    judged = [e for e in entries if e["role"] != "diagnostic"]
    counts = collections.Counter(e["verdict"] for e in judged)
    return status, len(judged), counts, problems  # failed or missing on one side (links said apart are not)


def pairs_line(name, paths, picks=None):
    total, claims, clock, statuses, missing = 0, collections.Counter(), 0, collections.Counter(), 0
    for a, b in itertools.combinations(paths, 2):
        status, judged, counts, one_side = judged_pair(a, b, picks)
        total += judged
        statuses[status] += 1
        missing += len(one_side)
        for verdict, n in counts.items():
            if verdict in CLAIMS:
                claims[verdict] += n
            elif verdict.endswith("(clock)"):
                clock += n
    pairs = len(paths) * (len(paths) - 1) // 2
    claimed = sum(claims.values())
    return (f"| {name} | {pairs} | {total} | {claimed} ({claimed / max(total, 1) * 1000:.2f} per 1,000)"
            f"{': ' + ', '.join(f'{n} {v}' for v, n in sorted(claims.items())) if claims else ''} | {clock} | "
            f"{missing} | {', '.join(f'exit {s}: {n}' for s, n in sorted(statuses.items()))} |")


def honesty_by_class(paths, restate=False):
    """{(class, band): (outside, total)} of every ordered pair: a value outside another run's stated interval, as the
    run's JSON states it or (`restate`) as the shipped noise model states it now."""
    runs = []
    for path in paths:
        report = report_model.load(path)
        found = {}
        for gpu, part in report.devices():
            for row in compare.own_rows(part):
                if not row.ok or row.stop not in ("target", "cap"):
                    continue
                if restate:
                    row.precision = {k: v for k, v in row.precision.items() if k != "stated"}
                for quantity in row.results:
                    value = row.value("real_time") if quantity == "time" else row.value(quantity)
                    cls = noise.class_of(row, quantity, part.context)
                    width = stated.half_width(row, quantity, part.context)
                    if value is not None and width is not None and cls not in (None, *noise.NOT_JUDGED):
                        found[(gpu, row.key, quantity)] = (value, width, cls)
        runs.append(found)
    out = collections.defaultdict(lambda: [0, 0])
    for a, b in itertools.permutations(range(len(runs)), 2):
        for key, (value, width, cls) in runs[a].items():
            if key in runs[b]:
                band = "<=0.5%" if width <= 0.005 else ">0.5%"
                for group in ((cls, band), ("all", band), ("all", "all")):
                    out[group][0] += abs(runs[b][key][0] - value) > abs(value) * width
                    out[group][1] += 1
    return out


def gpu_pairs(paths, folder):
    """[[before, after]] of two runs: the runs themselves, or for node runs each GPU's rows and context written as a
    run of that GPU alone (in `folder`), so that a plant is judged as compare judges one GPU of a node."""
    reports = [report_model.load(path) for path in paths]
    if len(reports[0].devices()) == 1:
        return [list(paths)]
    pairs = []
    for gpu, _ in reports[0].devices():
        pair = []
        for i, report in enumerate(reports):
            part = dict(report.devices())[gpu]
            written = os.path.join(folder, f"run{i}-gpu{gpu}.json")
            with open(written, "w") as f:
                json.dump({"context": part.context, "benchmarks": [dict(r) for r in part.all_rows if r.gpu == gpu]}, f)
            pair.append(written)
        pairs.append(pair)
    return pairs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("groups", nargs="*", metavar="NAME=RUN,RUN,...")
    parser.add_argument("--against", action="append", default=[], metavar="NODE:ALONE0,ALONE1,...")
    args = parser.parse_args()
    groups = []
    for text in args.groups:
        name, _, runs = text.partition("=")
        groups.append((name, [p for r in runs.split(",") for p in archive.expand([r])]))
    print("| runs | pairs | results judged | claimed changes | (clock) | rows failed or missing on one side | compare --threshold 2 |")
    print("|---|---:|---:|---|---:|---:|---|")
    for name, paths in groups:
        print(pairs_line(name, paths))
    for text in args.against:
        node, _, alone = text.partition(":")
        for gpu, path in enumerate(alone.split(",")):
            print(pairs_line(f"GPU {gpu} alone against {os.path.basename(node)}", [path, node], picks=(gpu, gpu)))
    print("\n| runs | stated precision honest (values outside another run's 95% interval): all | <=0.5% | >0.5% | "
          "worst classes |")
    print("|---|---|---|---|---|")
    for name, paths in groups:
        if len(paths) < 2:
            continue
        for label, restate in (("as the runs' JSON states it", False), ("by the shipped model now", True)):
            out = honesty_by_class(paths, restate)
            share = lambda key: f"{out[key][0]} of {out[key][1]} ({out[key][0] / max(out[key][1], 1):.1%})"  # noqa
            classes = sorted(((o / t, cls, band) for (cls, band), (o, t) in out.items() if cls != "all" and t >= 50),
                             reverse=True)[:3]
            print(f"| {name}, {label} | {share(('all', 'all'))} | {share(('all', '<=0.5%'))} | "
                  f"{share(('all', '>0.5%'))} | " + "; ".join(f"{cls} {band} {r:.1%}" for r, cls, band in classes) + " |")
    print("\n| runs | planted 2% on results stated to 0.5% or better | planted 5% on every result |")
    print("|---|---|---|")
    model = noise.load()
    labels = ("2% on results stated to 0.5% or better", "5% on every result")
    for name, paths in groups:
        if len(paths) < 2:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            totals = {label: collections.Counter() for label in labels}
            for pair in gpu_pairs(paths[:2], tmp):  # a node's pair: each GPU's rows, as a run of it alone
                found = precision_calibration.repeatability(pair, model, out=lambda line: None)
                for label in labels:
                    totals[label].update(found[label])
        cells = [", ".join(f"{n} {v}" for v, n in sorted(totals[label].items())) for label in labels]
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
