#!/usr/bin/env python3
"""Calibration of the two verdicts on runs of identical code (no GPU needed: it reads committed runs):
false alarms of compare.py and of the SKU check on repeated runs of the same board and of several boards,
with limits and noise floors made without the runs being judged (leave-one-out), and their power on planted
faults. Prints a Markdown report (docs/results/2026-11-25-verdicts/README.md holds its output).

    calibrate_verdicts.py RUN.json[.gz] ... [--before COMMIT] [--sku h200 --name H200 --match H200]
                                          runs of one SKU, each with gpu_uuid in its context

--before: also run that commit's compare.py and card.py --check (with its own ranges) on the same pairs.
"""
import argparse
import copy
import gzip
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)
from analysis import card, compare, make_ranges, ranges  # noqa: E402
from analysis import report as report_model  # noqa: E402

SKU = ["h100-sxm5", "H100 SXM5 80GB HBM3", ["H100 80GB HBM3"]]  # --sku, --name, --match
# Planted faults on the check: (card key, what changes, factor on the rows behind it, quantities scaled).
LATENCY = ("cycles_per_load", "ns_per_load", "median_over_sms", "min_over_sms", "max_over_sms", "cycles", "ns")
RATE = ("bytes_per_second", "fraction_of_peak", "bytes_per_clock_per_sm", "tensor_tops", "tensor_ops_per_clock_per_sm")
PLANTS = (("bandwidth.stream_read.bytes_per_second", "DRAM read -5%", 0.95, RATE),
          ("memory.l2.cycles", "near-L2 latency +5%", 1.05, LATENCY),
          ("compute.tensor.wgmma.f16_f32_ss", "wgmma FP16 -10%", 0.90, RATE),
          ("memory.l2.sm_spread", "one SM's L2 latency +15%", None, None))


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def write(data, folder, name):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(data, f)
    return path


def board(data):
    return data["context"].get("gpu_uuid", "?")


def limits_without(paths, left_out, tmp, min_runs=5, min_machines=3):
    """A ranges table whose SKU entry is made from `paths` minus `left_out` (the others kept as shipped)."""
    kept = [p for p in paths if p not in left_out]
    table = ranges.load()
    table["skus"][SKU[0]] = make_ranges.make_entry(kept, SKU[1], SKU[2], "calibration", min_runs=min_runs,
                                                   min_machines=min_machines)
    return write(table, tmp, f"limits-{len(os.listdir(tmp))}.json")


def check(path, limits, subset=False):
    report = report_model.load(path)
    results = []
    for _, part in report.devices():
        built = card.Card(part)
        built.limits = ranges.load(limits)
        built.build()
        results.append((ranges.verdict(built.ranges, built.failed, subset), built))
    return results


def compare_counts(before, after, limits, threshold=5.0):
    status, _, entries, problems, _, slower, changed = compare.run_compare(before, after, ".", threshold, False, False,
                                                                             limits)
    counts = {}
    for e in entries:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    return status, counts, entries


def plant_check(data, key, factor, quantities, tmp):
    """A copy of the run with the rows behind card value `key` changed; for the spread, one SM made 15% slower."""
    data = copy.deepcopy(data)
    report = report_model.from_dict(data)
    value = next(v for v in card.Card(report).build().values if v["key"] == key)
    # A fault of the part slows every row of the experiments behind the value, not only the best one.
    registered = {r.registered for r in card.rows_of(report, value["source"])}
    names = {r.full_name for r in report.rows() if r.registered in registered}
    for row in data["benchmarks"]:
        if row.get("run_name", row.get("name")) not in names:
            continue
        if factor is None:  # one SM's L2 latency +15%: the sweep's slowest reading becomes that SM's
            row["max_over_sms"] = max(row["max_over_sms"], row["median_over_sms"] * 1.15)
            continue
        for q in quantities:
            if q in row:
                row[q] *= factor
    return write(data, tmp, "planted.json")


def plant_compare_row(data, row_name, tmp):
    """A copy of the run with one row's results made 5% worse."""
    data = copy.deepcopy(data)
    for row in data["benchmarks"]:
        if row.get("run_name") == row_name:
            for q, better in row["gpubench"]["results"].items():
                if q == "time":
                    row["real_time"] *= 1.05
                elif q in row:
                    row[q] *= 1.05 if better == "lower" else 1 / 1.05
    return write(data, tmp, "planted-row.json")


def before_tools(commit, tmp):
    folder = os.path.join(tmp, "before")
    os.makedirs(folder)
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit, "analysis"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
    return folder


def run_before(folder, args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--before", help="a commit whose compare.py and card.py --check to run on the same runs")
    parser.add_argument("--sku", default=SKU[0], help="the SKU's key in the ranges (default h100-sxm5)")
    parser.add_argument("--name", default=SKU[1])
    parser.add_argument("--match", action="append", help="text the GPU's name contains (default: H100 80GB HBM3)")
    args = parser.parse_args()
    SKU[:] = [args.sku, args.name, args.match or SKU[2]]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        data = {path: read(path) for path in args.runs}
        plain = {path: write(d, tmp, os.path.basename(path).replace(".gz", "")) for path, d in data.items()}
        # The old tools see the runs as they would have been written before the rows carried their noise.
        stripped = {}
        for path, d in data.items():
            old_rows = copy.deepcopy(d)
            for row in old_rows["benchmarks"]:
                row.pop("time_spread", None)
                row.pop("cycles_spread", None)
            stripped[plain[path]] = write(old_rows, tmp, "old-" + os.path.basename(path).replace(".gz", ""))
        paths = list(plain.values())
        boards = {}
        for path in args.runs:
            boards.setdefault(board(data[path]), []).append(plain[path])
        label = {plain[p]: os.path.basename(p).split(".")[0] for p in args.runs}
        board_of = {plain[p]: board(data[p]) for p in args.runs}
        out.append(f"{len(paths)} runs on {len(boards)} boards: " + "; ".join(
            f"{b[:12]}: {', '.join(label[p] for p in ps)}" for b, ps in boards.items()))
        same_board = [(ps[0], ps[1]) for ps in boards.values() if len(ps) > 1]
        firsts = [ps[0] for ps in boards.values()]
        cross = [(a, b) for i, a in enumerate(firsts) for b in firsts[i + 1:]]
        old = before_tools(args.before, tmp) if args.before else None

        # compare: false alarms on pairs of identical code, floors made without the pair.
        out += ["", "## compare.py --threshold 5 on runs of identical code", "",
                "| pair | kind | before: exit, flagged | after: exit | slower | faster | ambiguous | fixed changed |"
                " slower or faster only by the clock | same |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
        for kind, pairs in (("same board, back to back", same_board), ("two boards", cross)):
            for a, b in pairs:
                limits = limits_without(paths, {a, b}, tmp, min_runs=3, min_machines=2)
                status, counts, _ = compare_counts(a, b, limits)
                before = "-"
                if old:
                    done = run_before(old, [os.path.join(old, "analysis", "compare.py"), stripped[a], stripped[b],
                                            "--threshold", "5"])
                    flagged = next((line.split(",")[2].strip() for line in done.stdout.splitlines()
                                    if "quantities compared" in line), "?")
                    before = f"{done.returncode}, {flagged}"
                out.append(f"| {label[a]} / {label[b]} | {kind} | {before} | {status} | {counts.get('slower', 0)} | "
                           f"{counts.get('faster', 0)} | {counts.get('ambiguous', 0)} | {counts.get('changed', 0)} | "
                           f"{counts.get('slower (clock)', 0) + counts.get('faster (clock)', 0)} | "
                           f"{counts.get('same', 0)} |")

        # compare: power, each GPU row of one run made 5% worse in turn against its back-to-back twin.
        a, b = same_board[0]
        limits = limits_without(paths, {a, b}, tmp, min_runs=3, min_machines=2)
        table = ranges.load(limits)
        floor_of = compare.floors(report_model.load(a), table)
        _, before_sides, _ = compare.load(a)
        _, after_sides, _ = compare.load(b)
        caught, ambiguous, missed, missed_names = 0, 0, 0, []
        for name, side in after_sides.items():
            if name not in before_sides or side.rows[0].gpu is None and "CPU" in side.rows[0].family:
                continue
            worse = copy.deepcopy(side)
            for q, better in side.results.items():
                worse.samples[q] = [x * (1.05 if better == "lower" else 1 / 1.05) for x in side.samples[q]]
            verdicts = {e["verdict"] for e in compare.compare_rows({name: before_sides[name]}, {name: worse}, floor_of)
                        if e["role"] == "result"}
            if "slower" in verdicts:
                caught += 1
            elif "ambiguous" in verdicts:
                ambiguous += 1
            else:
                missed += 1
                missed_names.append(name)
        total = caught + ambiguous + missed
        out += ["", f"Power: every GPU row of {label[b]} made 5% worse in turn, against {label[a]} (floors without "
                f"both): **slower in {caught} of {total} rows**, ambiguous in {ambiguous}, same in {missed}"
                + (f" ({', '.join(sorted(missed_names))})" if missed_names else "") + "."]
        stream_row = next(n for n in after_sides if n.startswith("Stream/read/"))
        planted = plant_compare_row(data[next(p for p in args.runs if plain[p] == b)], stream_row, tmp)
        status, counts, entries = compare_counts(a, planted, limits)
        named = [e for e in entries if e["verdict"] == "slower"]
        out.append(f"One row 5% slower ({stream_row}): compare.py --threshold 3 exits "
                   f"{compare.run_compare(a, planted, '.', 3.0, False, False, limits)[0]}, naming "
                   + ", ".join(f"{e['benchmark']} {e['quantity']} {e['change']:+.1%}" for e in named) + ".")

        # the check: each run held out of its limits, then each board held out.
        out += ["", "## The SKU check on runs of identical code", "",
                "| run | board | before (old rule, old ranges) | after: leave the run out | after: leave its board out |",
                "|---|---|---|---|---|"]
        false_alarms = {"run": 0, "board": 0}
        for path in paths:
            its_board = [ps for ps in boards.values() if path in ps][0]
            cells = []
            for key, left_out in (("run", {path}), ("board", set(its_board))):
                limits = limits_without(paths, left_out, tmp)
                (status, line), _ = check(path, limits)[0]
                false_alarms[key] += status != ranges.NORMAL
                cells.append(line[:140] + ("..." if len(line) > 140 else ""))
            before = "-"
            if old:
                done = run_before(old, [os.path.join(old, "analysis", "card.py"), stripped[path], "--out",
                                        os.path.join(tmp, "old-card"), "--check"])
                before = done.stderr.strip().splitlines()[-1][len("card.py --check: "):][:140] if done.stderr else "?"
            out.append(f"| {label[path]} | {board_of[path][:12]} | {before} | "
                       f"{cells[0]} | {cells[1]} |")
        out += ["", f"False alarms: {false_alarms['run']} of {len(paths)} runs left out one at a time, "
                f"{false_alarms['board']} of {len(paths)} with their whole board left out."]

        # the check's power: planted faults, each run judged by limits made without it.
        out += ["", "## Planted faults against the SKU check (limits made without the run)", "",
                "| fault | caught (abnormal naming it) | verdict on the first run |", "|---|---|---|"]
        for key, what, factor, quantities in PLANTS:
            hits, first = 0, ""
            for path in paths:
                limits = limits_without(paths, {path}, tmp)
                source = data[[p for p in args.runs if plain[p] == path][0]]
                planted = plant_check(source, key, factor, quantities, tmp)
                (status, line), built = check(planted, limits)[0]
                named = any(c["key"] == key for c in ranges.outside(built.ranges))
                hits += status == ranges.ABNORMAL and named
                first = first or line
            out.append(f"| {what} | {hits} of {len(paths)} | {first[:200]} |")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
