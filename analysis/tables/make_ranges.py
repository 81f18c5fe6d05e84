#!/usr/bin/env python3
"""Reference limits from repeated gpubench runs of the current code on several boards, written into
analysis/verdict/reference_ranges.json (other entries kept): a SKU's (its boards; every value) or an architecture's
(boards of one compute capability and any SKUs; only the values its families declare set by the SM or a fraction
of the chip's own peak: `set_by` in analysis/model/values.py):

    make_ranges.py --sku h100-sxm5 --name "H100 SXM5 80GB HBM3" --names "NVIDIA H100 80GB HBM3" \
        --source "README command 1, 2026-11-25" run1.json run2.json ...
    make_ranges.py --arch sm_90 --name "sm_90 (Hopper)" --source "..." h100*.json h200*.json

For each card value, from the pooled readings (one per run; at least --min-runs runs from --min-machines
boards, told apart by gpu_uuid): the median m and the robust spread s = 1.4826 x MAD, then a limit on the side
that is a fault for the value's kind, at m -/+ max(k x s, floor x m) and never inside a reading seen:
a rate has a lower limit, a latency or a spread over SMs an upper one, a capacity or a count both (a
capacity's sweep brackets must meet), an informational value none. Each limit keeps its method, count,
boards and median (its robust sigma is the value's board-to-board spread, which the node layer reads).

Refused: for a SKU, runs of different GPUs or of a GPU its --names do not name; for an architecture, runs of
another compute capability or of fewer SKUs than --min-skus; fewer runs or boards than asked; non-positive k or
floor.
"""
import argparse
import os
import statistics
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from analysis.cards import card  # noqa: E402
from analysis.model import archive, cli  # noqa: E402
from analysis.verdict import links  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict import layers as verdict_layers  # noqa: E402

MAD_TO_SIGMA = 1.4826


_LOADED = {}  # path -> its GPUs' reports: a calibration makes many tables from one set of runs


def parts_of(paths):
    """[(path, board, gpu name, Report of one GPU)] of every GPU of every run."""
    found = []
    for path in paths:
        if path not in _LOADED:
            _LOADED[path] = cli.load(path).devices()
        for gpu, part in _LOADED[path]:
            board = part.context.get("gpu_uuid") or f"{path}#gpu{gpu}"
            found.append((path, board, part.context.get("gpu_name"), part))
    return found


_VALUES = {}  # id of a part's report -> its card values


def card_values(parts):
    """Each part's card values, built once: [(board, preset, values)]."""
    for _, _, _, part in parts:
        if id(part) not in _VALUES:
            _VALUES[id(part)] = (part, card.Card(part).build().values)  # the part kept: its id stays its own
    return [(board, part.context.get("gpubench_preset", "quick"), _VALUES[id(part)][1]) for _, board, _, part in parts]


def compute_capability(part):
    return str(part.context.get("gpu_compute_capability") or "")


def readings(built, layers=None):
    """{key: {"values": [...], "brackets": [...], "better", "method", "label", "unit", "boards": set}} of
    card_values' output."""
    found = {}
    for board, _, values in built:
        for v in values:
            if v["value"] is None or not verdict_layers.of_the_gpu(v["key"]) or v.get("limit"):
                continue  # a value with a limit of its own (an SM against the chip) needs none of the SKU's
            if layers is not None and v.get("set_by") not in layers:
                continue  # an architecture's limits: only what the SM sets, or fractions of the chip's peaks
            entry = found.setdefault(v["key"], {"values": [], "precisions": [], "brackets": [],
                                                "better": v["better"], "method": v["method"], "label": v["label"],
                                                "unit": v["unit"], "boards": set()})
            if entry["method"] != v["method"]:
                raise cli.UsageError(f"{v['key']}: the runs measured it by different methods ({entry['method']}, "
                                     f"{v['method']}); make limits from runs of one code")
            entry["values"].append(v["value"])
            entry["precisions"].append(v.get("precision"))
            entry["boards"].add(board)
            if "bracket" in v:
                entry["brackets"].append(v["bracket"])
    return found


def beyond_precision(values, precisions, side):
    """The farthest a limit may need to sit on `side` (-1 low, +1 high) so that no reading lies within its own stated
    precision of it: a value known to +-4% cannot be held to a limit 2% away (the L2 read of a small shared set on
    held-out H100s, 2026-11-28). None where no reading states a precision."""
    bounds = [v * (1 + side * p) for v, p in zip(values, precisions or []) if p]
    if not bounds:
        return None
    return min(bounds) if side < 0 else max(bounds)


def limit(entry, k, floor):
    """{low, high, better, median, spread...} by the robust rule, never inside a reading seen nor within a reading's
    own stated precision of it."""
    values = entry["values"]
    m = statistics.median(values)
    s = MAD_TO_SIGMA * statistics.median(abs(x - m) for x in values)
    # A spread over SMs is the slowest SM against the fastest less one: its floor is that ratio's, (1 + m) x floor.
    margin = max(k * s, floor * (1 + abs(m) if entry["better"] == "spread" else abs(m)))
    better = entry["better"]
    # The healthy boards' readings span this: two healthy boards may differ by it (the node layer's tolerance).
    out = {"better": better, "median": round(m, 6), "robust_sigma": round(s, 6),
           "seen": [round(min(values), 6), round(max(values), 6)]}
    precisions = entry.get("precisions")
    if better == "higher":
        low = min(m - margin, min(values) * (1 - floor / 3))
        out["low"] = round(min(low, beyond_precision(values, precisions, -1) or low), 6)
    elif better in ("lower", "spread"):
        high = max(m + margin, max(values) * (1 + floor / 3))
        out["high"] = round(max(high, beyond_precision(values, precisions, +1) or high), 6)
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


def check_numbers(k, floor, min_runs, min_machines):
    for name, value in (("--k", k), ("--floor", floor)):
        if not value > 0:
            raise cli.UsageError(f"{name} must be positive, got {value}")
    for name, value in (("--min-runs", min_runs), ("--min-machines", min_machines)):
        if value < 1:
            raise cli.UsageError(f"{name} must be at least 1, got {value}")


def limits_of(built, source, k, floor, min_runs, min_machines, layers=None):
    made = {}
    for key, found in sorted(readings(built, layers).items()):
        if len(found["values"]) < min_runs or len(found["boards"]) < min_machines:
            continue  # a value few runs or boards measured (a preset's own rows) gets no limit
        bound = limit(found, k, floor)
        bound.update({"method": found["method"], "label": found["label"], "count": len(found["values"]),
                      "boards": len(found["boards"]),
                      "source": f"{source}: {len(found['values'])} readings on {len(found['boards'])} boards, "
                                f"{min(found['values']):.4g}-{max(found['values']):.4g}, median {bound['median']:.4g}"})
        made[key] = bound
    return made


def gathered(paths, min_runs, min_machines):
    if len(paths) < max(2, min_runs):
        raise cli.UsageError(f"{len(paths)} run(s): limits need at least {max(2, min_runs)} runs (--min-runs) of "
                             "the current code; a single run says nothing of the noise")
    parts = parts_of(paths)
    boards = {board for _, board, _, _ in parts}
    if len(boards) < min_machines:
        raise cli.UsageError(f"the runs come from {len(boards)} board(s) (gpu_uuid): limits need at least "
                             f"{min_machines} (--min-machines), so that a machine's own offset is not the SKU's")
    return parts, boards


def make_entry(paths, sku_name, names, source, k=4.0, floor=limit_table.NODE_FLOOR, min_runs=5, min_machines=3):
    """A SKU's entry of the ranges file, or a UsageError."""
    check_numbers(k, floor, min_runs, min_machines)
    parts, boards = gathered(paths, min_runs, min_machines)
    seen = sorted({name or "(no GPU)" for _, _, name, _ in parts})
    if len(seen) > 1:
        raise cli.UsageError("the runs come from different GPUs (" + ", ".join(seen) + "); limits are one SKU's")
    if seen[0] not in names:
        raise cli.UsageError(f"the runs' GPU is {seen[0]}, which no --names entry ({', '.join(names)}) is")
    built = card_values(parts)
    entry = {"name": sku_name, "names": list(names),
             "ranges": limits_of(built, source, k, floor, min_runs, min_machines),
             "made": {"runs": len(paths), "boards": len(boards), "k": k, "floor": floor, "source": source}}
    entry["expected"] = expected_by_preset(built, entry["ranges"])
    return entry


def link_limits(paths, source, k, floor, min_readings=3):
    """{key: limit} of the links of the runs over several GPUs among `paths` (analysis/verdict/links.py): each ordered
    link of each run one reading, by the same robust rule."""
    pooled = {}
    for path in paths:
        for pair, value in links.link_values(cli.load(path)).items():
            for key, label, field, better, _ in links.QUANTITIES:
                if value.get(field) is not None:
                    entry = pooled.setdefault(key, {"values": [], "brackets": [], "better": better, "label": label,
                                                    "hosts": set()})
                    entry["values"].append(value[field])
                    entry["hosts"].add(frozenset(value["boards"]))
    made = {}
    for key, entry in pooled.items():
        if len(entry["values"]) < min_readings:
            continue
        bound = limit(entry, k, floor)
        bound.update({"label": entry["label"], "count": len(entry["values"]), "hosts": len(entry["hosts"]),
                      "source": f"{source}: {len(entry['values'])} links of {len(entry['hosts'])} pair(s) of boards, "
                                f"{min(entry['values']):.4g}-{max(entry['values']):.4g}, median {bound['median']:.4g}"})
        made[key] = bound
    return made


def make_arch_entry(paths, arch, arch_name, source, k=4.0, floor=limit_table.NODE_FLOOR, min_runs=5, min_machines=3, min_skus=2,
                    link_runs=()):
    """An architecture's entry: the values its families declare set by the SM or a fraction of the chip's own peak,
    pooled over boards of several SKUs of one compute capability, or a UsageError."""
    check_numbers(k, floor, min_runs, min_machines)
    parts, boards = gathered(paths, min_runs, min_machines)
    wanted = {limit_table.arch_key(compute_capability(part)) for _, _, _, part in parts}
    if wanted != {arch}:
        raise cli.UsageError(f"the runs are of {', '.join(sorted(str(w) for w in wanted))}, not only {arch}: an "
                             "architecture's limits come from its own chips")
    skus = sorted({name for _, _, name, _ in parts})
    if len(skus) < min_skus:
        raise cli.UsageError(f"the runs come from {len(skus)} SKU(s) ({', '.join(skus)}): an architecture's limits "
                             f"need at least {min_skus} (--min-skus), so that one product's offset is not the "
                             "architecture's")
    built = card_values(parts)
    entry = {"name": arch_name, "skus": skus,
             "ranges": limits_of(built, source, k, floor, min_runs, min_machines, layers=("sm", "chip")),
             "made": {"runs": len(paths), "boards": len(boards), "skus": skus, "k": k, "floor": floor,
                      "source": source}}
    for bound in entry["ranges"].values():
        bound["layer"] = "architecture"
    entry["expected"] = expected_by_preset(built, entry["ranges"])
    entry["links"] = link_limits([p for p in paths if len(cli.load(p).devices()) > 1] + list(link_runs), source, k,
                                 floor)
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--sku", help="the SKU's key (its limits: every value)")
    which.add_argument("--arch", help="the architecture's key, sm_XY (its limits: what the SM sets)")
    parser.add_argument("--name", required=True)
    parser.add_argument("--names", action="append", help="with --sku: the GPU's name exactly as the driver says it")
    parser.add_argument("--source", required=True, help="what the runs were (device, commands, dates)")
    parser.add_argument("--k", type=float, default=4.0, help="robust sigmas from the median to a limit")
    parser.add_argument("--floor", type=float, default=limit_table.NODE_FLOOR,
                        help="least distance of a limit, relative to the median")
    parser.add_argument("--min-runs", type=int, default=5)
    parser.add_argument("--min-machines", type=int, default=3)
    parser.add_argument("--min-skus", type=int, default=2, help="with --arch: SKUs the runs must come from")
    parser.add_argument("--links", nargs="+", default=[], help="with --arch: more runs over several GPUs whose links "
                                                             "the link limits pool (the runs' own count too)")
    parser.add_argument("--file", default=limit_table.default_path(), help="the limits file (default: $GPUBENCH_RANGES, "
                                                                       "else the shipped one)")
    args = parser.parse_args()
    args.runs, args.links = archive.expand(args.runs), archive.expand(args.links)
    if args.sku and not args.names:
        parser.error("--sku needs --names (the GPU's name exactly as the driver reports it)")
    try:
        table = limit_table.load(args.file)
    except (OSError, ValueError) as e:
        raise cli.UsageError(f"reference ranges: {e}") from None
    if args.sku:
        entry = make_entry(args.runs, args.name, args.names, args.source, args.k, args.floor, args.min_runs,
                           args.min_machines)
        table["skus"][args.sku] = entry
    else:
        entry = make_arch_entry(args.runs, args.arch, args.name, args.source, args.k, args.floor, args.min_runs,
                                args.min_machines, args.min_skus, args.links)
        table["architectures"][args.arch] = entry
    cli.write_json(args.file, table, "limits file")
    print(f"{args.sku or args.arch}: {len(entry['ranges'])} limits from {entry['made']['runs']} runs on "
          f"{entry['made']['boards']} boards", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
