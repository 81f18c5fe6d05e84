#!/usr/bin/env python3
"""The fleet report: every node's gpubench JSON (one per node, each over all of its GPUs; analysis/fleet.sbatch
writes them) in one table across nodes and GPUs, each value flagged when it strays from the fleet's median or
lies outside a limit, and each GPU's verdict. Card files (*.card*.json) among the inputs are skipped; a damaged
file is listed and the other nodes are still reported.

    fleet.py DIR/*.json [--out PREFIX] [--tolerance FRACTION] [--check] [--subset] [--ranges FILE]

GPU runs: the card's headline values per GPU, each GPU's verdict (analysis/verdict/judge.py: its architecture's and
SKU's limits, its node's other GPUs, its own SMs, busy), and each value against the fleet's median of its GPU
name, flagged past the value's measured board-to-board spread (4 robust sigmas, at least 4%; --tolerance sets
one fraction for all). Runs without a GPU (host rows only, e.g. PointerChaseCPU on a CPU partition): each host
row's time per node. Exit status: 0; 1 with --check when anything is flagged or a file could not be read; 2 bad
input (no run could be read).
"""
import argparse
import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.cards.headline import HEADLINE  # noqa: E402
from analysis.model import archive, cli  # noqa: E402
from analysis.verdict import links  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict import judge, layers, table, wording  # noqa: E402

# (column, card key, scale, unit): what tells a slow HBM stack, a degraded link or a throttled SM apart.
# The headline values, and the SM clock the run measured (from its context).
GPU_COLUMNS = HEADLINE + (("SM clock", "sm_clock", 1, "MHz"),)


def node_name(path, report):
    """A node is its file (hosts of a fleet may all call themselves "vm"): the file's name, and the host's where it
    says another."""
    stem = os.path.basename(path)
    for suffix in (".gz", ".json"):
        stem = stem[:-len(suffix)] if stem.endswith(suffix) else stem
    host = report.context.get("host_name")
    return stem if not host or host == stem else f"{stem} ({host})"


def gpu_text(e):
    """"GPU 0 (GPU-309057df)", or "host" for a run without a GPU."""
    if e["gpu"] is None:
        return "host"
    uuid = (e.get("context") or {}).get("gpu_uuid")
    return f"GPU {e['gpu']}" + (f" ({uuid[:12]})" if uuid else "")


def node_links(report, node, limits, path):
    """[{"node", "link", "one_way", "both_ways", "latency", "flags"}] of a node's links, each judged (links.py)."""
    values = links.link_values(report)
    if not values:
        return []
    checks, named = links.judge(values, links.limits_of(report, limits))
    _, lines = links.lines(checks, named)
    found = []
    for (a, b), v in values.items():
        bad = [c for c in checks if c["link"] == (a, b) and c["inside"] is False]
        gpu_named = [g for g in named if g in (a, b)]
        flags = ("GPU " + ", ".join(map(str, gpu_named)) + ": every link slow") if gpu_named else \
            "; ".join(f"{c['label']} {c['value']:.4g} ({c['layer']})" for c in bad)
        found.append({"node": node, "file": path, "link": f"{a}->{b}", "one_way": v.get("one_way"), "fraction": v.get("one_way_fraction"),
                      "both_ways": v.get("both_ways"), "latency": v.get("latency_cycles"), "flags": flags})
    return found


def entries(paths, damaged=None, limits=None, subset=False, link_rows=None):
    """One entry per node and GPU: {"node", "gpu", "name", "values": {column: value}, "ranges": checks, "verdict"};
    host-only runs give one entry per node with each host row's time. Card files beside the runs are skipped; a
    file that cannot be read goes into `damaged` ({path: why}) and the others are still read."""
    found = []
    for path in paths:
        if ".card" in os.path.basename(path):  # gpubench's cards beside each node's run
            continue
        try:
            report = cli.load(path)
        except cli.UsageError as e:
            if damaged is None:
                raise
            damaged[path] = str(e)
            continue
        node = node_name(path, report)
        parts = report.devices()
        if link_rows is not None:
            link_rows += node_links(report, node, limits, path)
        if all(part.has_gpu() for _, part in parts):
            for gpu, built, status, line in judge.judge_all(report, limits, subset):
                part = built.report
                by_key = {v["key"]: v["value"] for v in built.values}
                lower = {column for column, key, _, _ in GPU_COLUMNS
                         if next((v.get("better") for v in built.values if v["key"] == key), None) == "lower"}
                by_key["sm_clock"] = float(part.context.get("gpu_sm_clock_mhz_measured") or 0) or None
                values = {column: (by_key[key] * scale if by_key.get(key) is not None else None)
                          for column, key, scale, _ in GPU_COLUMNS}
                checks = {c["key"]: c for c in (built.checks or {}).get("checks", []) if c["inside"] is False}
                found.append({"node": node, "gpu": gpu if gpu is not None else 0, "file": path,
                              "name": part.context.get("gpu_name", "?"), "values": values, "ranges": checks,
                              "verdict": (status, line), "context": part.context, "card": built, "lower": lower})
        else:
            values = {row.short_name: row.get("real_time") for row in report.all_rows if row.ok}
            found.append({"node": node, "gpu": None, "name": "host", "values": values, "ranges": {}, "verdict": None,
                          "file": path})
    return found


def flag(found, tolerance, limits=None):
    """Adds "flags": {column: why} to every entry: off the fleet's median (three or more GPUs of one name) on the
    fault's side by more than the value's tolerance (`tolerance`, or the node layer's rule), outside a limit, or a
    verdict other than normal or no limits."""
    keys_of = {column: key for column, key, _, _ in GPU_COLUMNS}
    columns = sorted({c for e in found for c in e["values"]})
    for entry in found:
        entry["flags"] = {}
    for column in columns:
        by_name = {}
        for e in found:
            if e["values"].get(column) is not None:
                by_name.setdefault(e["name"], []).append(e)
        for same in by_name.values():
            fleet = [e["values"][column] for e in same]
            for e in same:
                allowed = tolerance
                if allowed is None:
                    allowed = limit_table.peer_tolerance(
                        layers.board_spread(keys_of.get(column, ""), e.get("context", {}), limits) or 0.0)
                better = "lower" if column in e.get("lower", ()) else "higher"  # each value's direction, as its card says
                inside, median, off = limit_table.against_peers(e["values"][column], fleet, better, allowed)
                if len(same) >= 3 and not inside:
                    e["flags"][column] = f"{off:+.1%} from the fleet's median {median:.4g} (tolerance {allowed:.1%})"
    keys = {key: column for column, key, _, _ in GPU_COLUMNS}
    for e in found:
        for key, check in e["ranges"].items():
            column = keys.get(key, check["label"])
            e["flags"][column] = (e["flags"].get(column, "") + "; " if column in e["flags"] else "") + \
                f"{check['value']:.4g} {check['unit']}, outside ({wording.layer_text(check)}: " \
                f"{wording.limit_text(check)})"
        if e["verdict"] and e["verdict"][0] not in (table.NORMAL, table.NO_LIMITS):
            e["flags"]["check"] = e["verdict"][1]  # never a pass for a wrong answer, a busy GPU or what was not measured
    return columns


def links_markdown(link_rows):
    if not link_rows:
        return []
    out = ["", "## Links", "", "| node | link | one way (GB/s) | of the links | both ways (GB/s) | latency (cycles) | flag |",
           "|---|---|---:|---:|---:|---:|---|"]
    for r in link_rows:
        cell = lambda x, f: "-" if x is None else f.format(x)  # noqa: E731
        out.append(f"| {r['node']} | {r['link']} | {cell(r['one_way'] and r['one_way'] / 1e9, '{:.1f}')} | "
                   f"{cell(r['fraction'], '{:.1%}')} | {cell(r['both_ways'] and r['both_ways'] / 1e9, '{:.1f}')} | "
                   f"{cell(r['latency'], '{:.0f}')} | {('**' + r['flags'] + '** [' + r['file'] + ']') if r['flags'] else ''} |")
    return out


def markdown(found, columns, tolerance, damaged=None, link_rows=()):
    units = {column: unit for column, _, _, unit in GPU_COLUMNS}
    shown = [c for c in columns if any(e["values"].get(c) is not None for e in found)]
    gpu_order = [c for c, _, _, _ in GPU_COLUMNS if c in shown]
    shown = gpu_order + [c for c in shown if c not in gpu_order]
    flagged = [e for e in found if e["flags"]]
    slow_links = [r for r in link_rows if r["flags"]]
    counted = []
    if flagged:
        counted.append(f"{len(flagged)} GPU(s) or host(s)")
    if slow_links:
        counted.append(f"{len(slow_links)} link(s)")
    lines = [f"# Fleet report: {len({e['node'] for e in found})} node(s), {len(found)} GPU(s) or host(s)", "",
             "Flagged: off the median of the same GPUs (three or more of them) by more than "
             + (f"{tolerance:.0%}" if tolerance else "the value's measured board-to-board spread (at least "
                f"{limit_table.NODE_FLOOR:.0%})") + ", outside a limit, or a verdict other than normal. "
             + (f"**Flagged: {' and '.join(counted)}.**" if counted else "None flagged."),
             "", "| node | GPU | " + " | ".join(f"{c} ({units[c]})" if c in units else c for c in shown) + " |",
             "|---|---|" + "---|" * len(shown)]
    for e in sorted(found, key=lambda e: (e["node"], e["gpu"] if e["gpu"] is not None else -1)):
        cells = []
        for column in shown:
            value = e["values"].get(column)
            text = "-" if value is None else f"{value:.4g}"
            cells.append(f"**{text} !**" if column in e["flags"] else text)
        gpu = "host" if e["gpu"] is None else f"{e['gpu']} {e['name']}"
        lines.append(f"| {e['node']} | {gpu} | " + " | ".join(cells) + " |")
    if flagged:
        lines += ["", "## Flagged", ""]
        for e in flagged:
            for column, why in e["flags"].items():
                lines.append(f"- {e['node']} {gpu_text(e)} [{e['file']}]: {column} {why}")
    lines += links_markdown(link_rows)
    if damaged:
        lines += ["", "## Files that could not be read", ""] + [f"- {path}: {why}" for path, why in damaged.items()]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="one gpubench JSON per node")
    parser.add_argument("--out", help="write PREFIX.md (default: print)")
    parser.add_argument("--tolerance", type=float, help="one fraction off the fleet's median that is flagged, for "
                                                         "every value (default: each value's measured spread)")
    parser.add_argument("--check", action="store_true", help="exit 1 when anything is flagged")
    parser.add_argument("--subset", action="store_true", help="judge only what each run measured (filtered runs)")
    parser.add_argument("--history", help="add every node's GPUs to this history store (a SQLite path or a "
                                          "PostgreSQL URL: analysis/history.py) and say their drifts")
    parser.add_argument("--limits", "--ranges", dest="limits_file", default=limit_table.default_path(),
                        help="the reference limits (default: $GPUBENCH_RANGES, else the shipped ones)")
    args = parser.parse_args()
    if args.tolerance is not None and not args.tolerance > 0:
        parser.error("--tolerance must be a positive fraction")
    try:
        limits = limit_table.load(args.limits_file)
    except (OSError, ValueError) as e:
        raise cli.UsageError(f"reference ranges: {e}") from None
    damaged, link_rows = {}, []
    found = entries(archive.expand(args.json), damaged, limits, args.subset, link_rows)
    if not found:
        raise cli.UsageError("no node's run could be read: " + "; ".join(damaged.values()) if damaged else
                             "no gpubench run among the inputs (card files are skipped)")
    if args.history:
        from analysis.store import history_store  # here: only a fleet with a history reads it
        for path in sorted({e["file"] for e in found}):
            history_store.keep(args.history, path, cli.load(path),
                         [(e["card"], e["verdict"][0]) for e in found if e["file"] == path and e.get("card")],
                         lambda line: print(f"fleet.py: {line}", file=sys.stderr))
    columns = flag(found, args.tolerance, limits)
    text = markdown(found, columns, args.tolerance, damaged, link_rows)
    if args.out:
        cli.writable(args.out + ".md", "fleet report")
        with open(args.out + ".md", "w") as f:
            f.write(text)
        print(f"wrote {args.out}.md", file=sys.stderr)
    else:
        sys.stdout.write(text)
    for path, why in damaged.items():
        print(f"fleet.py: skipped {why}", file=sys.stderr)
    flagged = any(e["flags"] for e in found) or any(r["flags"] for r in link_rows)
    return 1 if args.check and (flagged or damaged) else 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
