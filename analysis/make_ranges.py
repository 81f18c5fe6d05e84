#!/usr/bin/env python3
"""The reference limits of a SKU from repeated gpubench runs of the current code on several machines of it,
written into analysis/reference_ranges.json under --sku (other SKUs kept):

    make_ranges.py --sku h100-sxm5 --name "H100 SXM5 80GB HBM3" --match "H100 80GB HBM3" \
        --source "README command 1, 2026-11-25" run1.json run2.json ...

For each card value, from the pooled readings (one per run; at least --min-runs runs from --min-machines
boards, told apart by gpu_uuid): the median m and the robust spread s = 1.4826 x MAD, then a limit on the side
that is a fault for the value's kind, at m -/+ max(k x s, floor x m) and never inside a reading seen:
a rate has a lower limit, a latency or a spread over SMs an upper one, a capacity or a count both (a
capacity's sweep brackets must meet), an informational value none. Each limit keeps its method, count,
boards and median. And for every row's result and fixed quantities: the run-to-run noise floor compare.py
uses, (max - min) / median over the runs x --noise-factor (at least --noise-min).

Refused: runs of different GPUs, a GPU the --match texts do not name, fewer runs or boards than asked, and
non-positive k, floor or factors.
"""
import argparse
import json
import os
import statistics
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis import card, cli, ranges  # noqa: E402

# Values that say more about the host, the run or the other GPUs than about this GPU.
NOT_OF_THE_GPU = ("peer.", "mlp.host.", "energy.", "memory.by_sm.", "bandwidth.stream_read.claimed_vs",
                  "bandwidth.stream_copy.claimed_vs")
MAD_TO_SIGMA = 1.4826
HOST_FLOOR = 0.25  # host rows: a shared host moves them by tens of percent between runs
UNFIXED = 0.02     # a "fixed" counter that moved more than this between runs of identical code is not fixed


def parts_of(paths):
    """[(path, board, gpu name, Report of one GPU)] of every GPU of every run."""
    found = []
    for path in paths:
        for gpu, part in cli.load(path).devices():
            board = part.context.get("gpu_uuid") or f"{path}#gpu{gpu}"
            found.append((path, board, part.context.get("gpu_name"), part))
    return found


def card_values(parts):
    """Each part's card values, built once: [(board, preset, values)]."""
    return [(board, part.context.get("gpubench_preset", "quick"), card.Card(part).build().values)
            for _, board, _, part in parts]


def readings(built):
    """{key: {"values": [...], "brackets": [...], "better", "method", "label", "unit", "boards": set}} of
    card_values' output."""
    found = {}
    for board, _, values in built:
        for v in values:
            if v["value"] is None or v["key"].startswith(NOT_OF_THE_GPU) or v.get("limit"):
                continue  # a value with a limit of its own (an SM against the chip) needs none of the SKU's
            entry = found.setdefault(v["key"], {"values": [], "brackets": [], "better": v["better"],
                                                "method": v["method"], "label": v["label"], "unit": v["unit"],
                                                "boards": set()})
            if entry["method"] != v["method"]:
                raise cli.UsageError(f"{v['key']}: the runs measured it by different methods ({entry['method']}, "
                                     f"{v['method']}); make limits from runs of one code")
            entry["values"].append(v["value"])
            entry["boards"].add(board)
            if "bracket" in v:
                entry["brackets"].append(v["bracket"])
    return found


def limit(entry, k, floor):
    """{low, high, better, median, spread...} by the robust rule, never inside a reading seen."""
    values = entry["values"]
    m = statistics.median(values)
    s = MAD_TO_SIGMA * statistics.median(abs(x - m) for x in values)
    margin = max(k * s, floor * abs(m))
    better = entry["better"]
    out = {"better": better, "median": round(m, 6), "robust_sigma": round(s, 6)}
    if better == "higher":
        out["low"] = round(min(m - margin, min(values) * (1 - floor / 3)), 6)
    elif better in ("lower", "spread"):
        out["high"] = round(max(m + margin, max(values) * (1 + floor / 3)), 6)
    elif better == "exact":
        out["low"] = round(min(m - margin, min(values)), 6)
        out["high"] = round(max(m + margin, max(values)), 6)
        if entry["brackets"]:
            out["bracket"] = [min(b[0] for b in entry["brackets"]), max(b[1] for b in entry["brackets"])]
    return out


def expected_by_preset(built, limits):
    """{preset: [keys]}: the limits' values that every run of each preset measured (the check preset measures
    fewer than the quick one), so a run of a preset is judged on what that preset measures and no less."""
    seen = {}
    for _, preset, values in built:
        keys = {v["key"] for v in values if v["value"] is not None}
        seen[preset] = keys if preset not in seen else seen[preset] & keys
    return {preset: sorted(keys & set(limits)) for preset, keys in sorted(seen.items())}


def noise_table(parts, factor, minimum):
    """{"rows": {"row|quantity": floor}, "default": x, "unfixed": [...]}: compare's run-to-run floor of every
    row's result and fixed quantities over the runs (rows in at least three runs). Host rows (no SM clock: they
    share the host with whatever else runs there) get three times the factor and at least HOST_FLOOR; a counter
    the catalog calls fixed that moved more than UNFIXED between runs of identical code is listed as unfixed
    (compare shows it as a diagnostic), one that moved less gets three times the factor."""
    samples, host, fixed_keys = {}, set(), set()
    for _, _, _, part in parts:
        fixed = part.fixed_counters()
        for row in part.all_rows:
            if not row.ok:
                continue
            for q in set(row.results) | {q for q in row if q in fixed}:
                value = float(row["real_time"]) if q == "time" else row.value(q)
                if value is None:
                    continue
                key = f"{row.short_name}|{q}"
                samples.setdefault(key, []).append(value)
                if "sm_mhz" not in row:
                    host.add(key)
                if q in fixed and q not in row.results:
                    fixed_keys.add(key)
    rows, unfixed = {}, []
    for key, values in samples.items():
        if len(values) < 3:
            continue
        m = statistics.median(values)
        spread = (max(values) - min(values)) / abs(m) if m else 0.0
        if key in fixed_keys:
            if spread > UNFIXED:
                unfixed.append(key)
                continue
            rows[key] = round(max(minimum, 3 * factor * spread), 4) if spread > 0 else minimum
        elif key in host:
            rows[key] = round(max(HOST_FLOOR, 3 * factor * spread), 4)
        else:
            rows[key] = round(max(minimum, factor * spread), 4)
    gpu_floors = sorted(v for k, v in rows.items() if k not in host and k not in fixed_keys)
    default = gpu_floors[int(0.9 * (len(gpu_floors) - 1))] if gpu_floors else 0.03
    return {"rows": dict(sorted(rows.items())), "default": round(max(default, 0.02), 4), "unfixed": sorted(unfixed)}


def make_entry(paths, sku_name, match, source, k=4.0, floor=0.04, noise_factor=1.5, noise_min=0.01,
               min_runs=5, min_machines=3):
    """The SKU's entry of the ranges file, or a UsageError."""
    for name, value in (("--k", k), ("--floor", floor), ("--noise-factor", noise_factor), ("--noise-min", noise_min)):
        if not value > 0:
            raise cli.UsageError(f"{name} must be positive, got {value}")
    if len(paths) < max(2, min_runs):
        raise cli.UsageError(f"{len(paths)} run(s): limits need at least {max(2, min_runs)} runs (--min-runs) of "
                             "the current code; a single run says nothing of the noise")
    parts = parts_of(paths)
    names = sorted({name or "(no GPU)" for _, _, name, _ in parts})
    if len(names) > 1:
        raise cli.UsageError("the runs come from different GPUs (" + ", ".join(names) + "); limits are one SKU's")
    if not any(text.lower() in (names[0] or "").lower() for text in match):
        raise cli.UsageError(f"the runs' GPU is {names[0]}, which no --match text ({', '.join(match)}) names")
    boards = {board for _, board, _, _ in parts}
    if len(boards) < min_machines:
        raise cli.UsageError(f"the runs come from {len(boards)} board(s) (gpu_uuid): limits need at least "
                             f"{min_machines} (--min-machines), so that a machine's own offset is not the SKU's")
    entry = {"name": sku_name, "match": match, "ranges": {},
             "made": {"runs": len(paths), "boards": len(boards), "k": k, "floor": floor, "source": source}}
    built = card_values(parts)
    for key, found in sorted(readings(built).items()):
        if len(found["values"]) < min_runs or len(found["boards"]) < min_machines:
            continue  # a value few runs or boards measured (a preset's own rows) gets no limit
        bound = limit(found, k, floor)
        bound.update({"method": found["method"], "label": found["label"], "count": len(found["values"]),
                      "boards": len(found["boards"]),
                      "source": f"{source}: {len(found['values'])} readings on {len(found['boards'])} boards, "
                                f"{min(found['values']):.4g}-{max(found['values']):.4g}, median {bound['median']:.4g}"})
        entry["ranges"][key] = bound
    entry["expected"] = expected_by_preset(built, entry["ranges"])
    entry["noise"] = noise_table(parts, noise_factor, noise_min)
    entry["noise"]["source"] = f"{source}: (max - min) / median of each row over {len(paths)} runs x {noise_factor}"
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--sku", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--match", action="append", required=True, help="text the GPU's name contains")
    parser.add_argument("--source", required=True, help="what the runs were (device, commands, dates)")
    parser.add_argument("--k", type=float, default=4.0, help="robust sigmas from the median to a limit")
    parser.add_argument("--floor", type=float, default=0.04, help="least distance of a limit, relative to the median")
    parser.add_argument("--noise-factor", type=float, default=1.5)
    parser.add_argument("--noise-min", type=float, default=0.01)
    parser.add_argument("--min-runs", type=int, default=5)
    parser.add_argument("--min-machines", type=int, default=3)
    parser.add_argument("--file", default=ranges.RANGES)
    args = parser.parse_args()
    table = ranges.load(args.file)
    entry = make_entry(args.runs, args.name, args.match, args.source, args.k, args.floor, args.noise_factor,
                       args.noise_min, args.min_runs, args.min_machines)
    table["skus"][args.sku] = entry
    table["version"] = 2
    with open(args.file, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")
    print(f"{args.sku}: {len(entry['ranges'])} limits and {len(entry['noise']['rows'])} noise floors from "
          f"{entry['made']['runs']} runs on {entry['made']['boards']} boards", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
