#!/usr/bin/env python3
"""Summary of gpubench's pointer-chase experiments, as Markdown, from one or more gpubench JSON files:

- memory levels of the cached chase (128-byte stride): latency in cycles and ns, capacity bounds, and
  the spread of each level's latency over repetitions (levels by latency_levels.py's staircase rule);
- shared-memory chase latency; L2-only and volatile paths at the smallest and largest sets;
- TLB reach (2 MiB page strides) and the L1 edge under each L1/shared carveout (same rule);
- MemoryParallelism: bandwidth per chains x warps, the best against the stream copy's bandwidth.

    chase_summary.py run.json [more.json ...]
"""
import argparse
import json
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import latency_levels  # noqa: E402

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


def merge(reports):
    return {"benchmarks": [row for report in reports for row in report.get("benchmarks", [])],
            "context": next((r["context"] for r in reports if r.get("context")), {})}


DEVICE_TAG = re.compile(r"/gpu:(\d+)(?=/|$)")


def devices_of(report):
    """A run over several GPUs (--gpubench_device=all or a list) as one report per GPU, in run order: that
    GPU's rows and context with their /gpu:N taken off, plus the host rows (no tag), so every rule reads it
    as a one-GPU run. A one-GPU run: [(None, report)]."""
    context = report.get("context", {})
    listed = context.get("gpubench_devices")
    if not listed:
        return [(None, report)]
    parts = []
    for gpu in (int(g) for g in str(listed).split(",")):
        tag = f"/gpu:{gpu}"
        own = {k: v for k, v in context.items() if not DEVICE_TAG.search(k)}
        own.update({k[:-len(tag)]: v for k, v in context.items() if k.endswith(tag)})
        rows = []
        for row in report.get("benchmarks", []):
            found = DEVICE_TAG.search(row.get("name", ""))
            if found and int(found.group(1)) != gpu:
                continue
            row = dict(row)
            for field in ("name", "run_name"):
                if field in row:
                    row[field] = DEVICE_TAG.sub("", row[field], count=1)
            rows.append(row)
        parts.append((gpu, {"context": own, "benchmarks": rows}))
    return parts


def size_text(size):
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size:.0f} B"


def by_size(rows, metric):
    values = defaultdict(list)
    for row in rows:
        values[float(row["working_set_bytes"])].append(float(row[metric]))
    return {size: statistics.mean(v) for size, v in values.items()}


def level_table(report, family, stride, names=None, tolerance=0.15, rule=None):
    """Levels of one family with cycles, ns and the spread of each level over repetitions. `rule` reads
    the levels off the (size, cycles) points: latency_levels.find_levels at `tolerance` by default."""
    cycles_rows = latency_levels.family_rows(report, family, "cycles_per_load", stride)
    if not cycles_rows:
        return []
    points = sorted(by_size(cycles_rows, "cycles_per_load").items())
    ns = by_size(cycles_rows, "ns_per_load")
    levels = rule(points) if rule else latency_levels.find_levels(points, tolerance)
    repetitions = defaultdict(lambda: defaultdict(list))  # repetition -> size -> cycles
    for row in cycles_rows:
        repetitions[row.get("repetition_index", 0)][float(row["working_set_bytes"])].append(row["cycles_per_load"])
    for index, level in enumerate(levels):
        if names:
            level["name"] = names[index] if index < len(names) else f"level {index + 1}"
        level["ns"] = statistics.median(ns[s] for s in level["sizes"])
        per_repetition = [statistics.median(statistics.mean(sizes[s]) for s in level["sizes"] if s in sizes)
                          for sizes in repetitions.values() if any(s in sizes for s in level["sizes"])]
        level["repetitions"] = len(per_repetition)
        mean = statistics.mean(per_repetition)
        level["spread"] = (max(per_repetition) - min(per_repetition)) / mean if mean else 0.0
    return levels


def tlb_levels(report):
    """TLB reach from the page-stride chase. A translation miss adds about 3% to an L2 hit, no more than
    the spread between neighbouring sizes, so no tolerance separates them reliably: the reach is the
    split that best fits one step (latency_levels.find_step)."""
    return level_table(report, "PointerChase/tlb", None, ["all pages mapped by the nearest TLB", "next TLB level"],
                       rule=latency_levels.find_step)


def carveout_edges(report):
    """{carveout percent: (first level, latency of the level above or None, rows)} from PointerChase/carveout."""
    carveouts = defaultdict(list)
    for row in latency_levels.family_rows(report, "PointerChase/carveout"):
        carveouts[int(row["carveout_percent"])].append(row)
    edges = {}
    for percent, rows in sorted(carveouts.items()):
        levels = latency_levels.find_levels(sorted(by_size(rows, "cycles_per_load").items()))
        if levels:
            edges[percent] = (levels[0], levels[1]["latency"] if len(levels) > 1 else None, rows)
    return edges


def print_levels(title, levels, capacity_word="capacity"):
    print(f"### {title}\n")
    print(f"| level | cycles | ns | {capacity_word} (last size on the plateau .. first size above) | points |"
          " spread over repetitions |")
    print("|---|---:|---:|---|---:|---:|")
    for level in levels:
        capacity = "-" if level["max_bytes"] is None else \
            f"{size_text(level['min_bytes'])} .. {size_text(level['max_bytes'])}"
        spread = f"{level['spread']:.2%} ({level['repetitions']} reps)" if level["repetitions"] > 1 else "one run"
        print(f"| {level['name']} | {level['latency']:.1f} | {level['ns']:.1f} | {capacity} | {level['points']} |"
              f" {spread} |")
    print()


def parallelism_rows(report, family):
    rows = defaultdict(list)
    for row in latency_levels.family_rows(report, family, "bytes_per_second"):
        rows[row["run_name"]].append(row)
    merged = []
    for run_rows in rows.values():
        merged.append({key: statistics.mean(float(r[key]) for r in run_rows)
                       for key in run_rows[0] if isinstance(run_rows[0][key], (int, float))})
        merged[-1]["run_name"] = run_rows[0]["run_name"]
    return merged


def dram_sized(rows, working_set=lambda r: float(r.get("working_set_bytes", 0))):
    """The rows of a streaming family that run from DRAM: a working set within 4x of the largest. (Stream's
    L2-sized rows are 256x smaller; its 2 GiB and 4 GiB arrays, grid-stride or claimed, all count.)"""
    largest = max((working_set(r) for r in rows), default=0)
    return [r for r in rows if working_set(r) * 4 >= largest]


def stream_row(report, op="copy"):
    """The best DRAM-sized Stream/<op> row (a copy that fits L2 runs faster than any DRAM-bound chase
    could), whichever its schedule. Runs from before the Stream family have StreamCopy/Copy."""
    rows = latency_levels.family_rows(report, f"Stream/{op}", "bytes_per_second")
    if not rows and op == "copy":
        rows = latency_levels.family_rows(report, "StreamCopy/Copy", "bytes_per_second")
    if not rows:
        return None
    return max(dram_sized(rows), key=lambda r: float(r["bytes_per_second"]))


def stream_bandwidth(report, op="copy"):
    """bytes_per_second (read + written) of stream_row."""
    row = stream_row(report, op)
    return float(row["bytes_per_second"]) if row else None


def stream_reference(report):
    """What many loads in flight should reach: the read-only stream (bytes read, as a chase reads), or in
    runs from before it, the copy (bytes read + written). Returns (bytes_per_second, label) or (None, None)."""
    for op, label in (("read", "read-only stream"), ("copy", "stream copy")):
        rate = stream_bandwidth(report, op)
        if rate:
            return rate, label
    return None, None


def parallelism_summary(report):
    """The whole-GPU chase rows and the best of them (compare it with stream_reference)."""
    whole = parallelism_rows(report, "MemoryParallelism/gpu")
    best = max(whole, key=lambda r: r["bytes_per_second"]) if whole else None
    return whole, best


def median(values):
    return statistics.median(values) if values else None


def bandwidth_levels(report):
    """L1, L2 and DRAM read bandwidth from CacheBandwidth: the median of each plateau's rows, the plateaus
    placed by the GPU's L2 size in the context. L1: ld.ca sets of up to 128 KiB per SM (inside any
    Hopper/Ampere L1); L2: ld.cg (L1 bypassed) sets up to half of L2; DRAM: sets of at least twice L2."""
    l2 = float(report.get("context", {}).get("gpu_l2_bytes", 0) or 0)
    rows = parallelism_rows(report, "CacheBandwidth")
    if not rows or l2 <= 0:
        return []
    per_sm = lambda r: run_args(r["run_name"]).get("KiB_per_sm", 0)  # noqa: E731
    cached = [r for r in rows if r["run_name"].startswith("CacheBandwidth/read/")]
    bypass = [r for r in rows if r["run_name"].startswith("CacheBandwidth/read_cg/")]
    plateaus = (("L1", [r for r in cached if per_sm(r) <= 128]),
                ("L2", [r for r in bypass if r["working_set_bytes"] <= l2 / 2]),
                ("DRAM", [r for r in rows if r["working_set_bytes"] >= 2 * l2]))
    levels = []
    for name, plateau in plateaus:
        if plateau:
            levels.append({"name": name, "bytes_per_second": median([r["bytes_per_second"] for r in plateau]),
                           "bytes_per_clock_per_sm": median([r.get("bytes_per_clock_per_sm", 0) for r in plateau]),
                           "rows": sorted(r["run_name"] for r in plateau)})
    return levels


def run_args(run_name):
    """{"chains": 4, "threads": 256} from "MemoryParallelism/one_sm/chains:4/threads:256/manual_time"."""
    return {key: int(value) for key, value in re.findall(r"(\w+):(\d+)", run_name)}


def host_parallelism(report):
    """The host chase's best row and the host's best plain read (both bytes_per_second), or None."""
    chases = parallelism_rows(report, "MemoryParallelismCPU/chase")
    reads = parallelism_rows(report, "MemoryParallelismCPU/read")
    best = max(chases, key=lambda r: r["bytes_per_second"]) if chases else None
    read = max((r["bytes_per_second"] for r in reads), default=None)
    return best, read


def print_parallelism(report):
    for family, column, unit, scale in (("MemoryParallelism/one_sm", "threads", "GB/s", 1e9),
                                        ("MemoryParallelism/gpu", "warps_per_sm", "TB/s", 1e12),
                                        ("MemoryParallelismCPU/chase", "threads", "GB/s", 1e9)):
        rows = parallelism_rows(report, family)
        if not rows:
            continue
        cells = {(run_args(r["run_name"])["chains"], run_args(r["run_name"])[column]): r for r in rows}
        chains = sorted({c for c, _ in cells})
        columns = sorted({k for _, k in cells})
        per = "thread" if family.startswith("MemoryParallelismCPU") else "warp"
        print(f"### {family}: {unit} by chains per {per} (rows) x {column} (columns)\n")
        print(f"| chains / {column} | " + " | ".join(str(c) for c in columns) + " |")
        print("|---|" + "---:|" * len(columns))
        for c in chains:
            values = [f"{cells[(c, k)]['bytes_per_second'] / scale:.2f}" if (c, k) in cells else "-" for k in columns]
            print(f"| {c} | " + " | ".join(values) + " |")
        print()
    _, best = parallelism_summary(report)
    if best:
        print(f"Best: {best['bytes_per_second'] / 1e12:.2f} TB/s at {best['run_name']} "
              f"({best['loads_in_flight']:.0f} lines in flight, {best['bytes_in_flight'] / MIB:.1f} MiB; "
              f"implied latency {best['implied_latency_ns']:.0f} ns, block 0 saw {best['ns_per_step']:.0f} ns "
              f"per step; DRAM read / ideal {best.get('dram_read_normalized', float('nan')):.3f}).")
        stream, label = stream_reference(report)
        if stream:
            print(f"The {label}'s best: {stream / 1e12:.2f} TB/s; the chase reaches "
                  f"**{best['bytes_per_second'] / stream:.1%}** of it.")
        print()
    host, read = host_parallelism(report)
    if host:
        print(f"Host: best chase {host['bytes_per_second'] / 1e9:.2f} GB/s at {host['run_name']} "
              f"({host['loads_in_flight']:.0f} lines in flight, {host['ns_per_load_per_chain']:.0f} ns per load per "
              f"chain)" + (f"; the host's plain read of the same buffer: {read / 1e9:.2f} GB/s, so the chase reaches "
                           f"**{host['bytes_per_second'] / read:.1%}** of it." if read else "."))
        single = [r for r in latency_levels.family_rows(report, "PointerChaseCPU", "ns_per_load")]
        if single:
            largest = max(single, key=lambda r: float(r["working_set_bytes"]))
            print(f"One chain alone (PointerChaseCPU at {size_text(float(largest['working_set_bytes']))}): "
                  f"{float(largest['ns_per_load']):.0f} ns per load; Little's law on the best host row implies "
                  f"{host['implied_latency_ns']:.0f} ns.")
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    args = parser.parse_args()
    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    for gpu, report in devices_of(merge(reports)):  # a run over several GPUs: each in turn
        if gpu is not None:
            print(f"# GPU {gpu}\n")
        summarize(report)
    return 0


def summarize(report):
    context = report["context"]
    print(f"Device: {context.get('gpu_name', '?')}, SM clock {context.get('gpu_sm_clock_mhz_measured', '?')} MHz\n")

    direct = level_table(report, "PointerChase/direct", 128)
    if direct:
        print_levels("PointerChase/direct (load-to-use: p = *p, ld.ca.u64, 128-byte stride): memory levels", direct)
    cached = level_table(report, "PointerChase/cached", 128)
    if cached:
        print_levels("PointerChase/cached (indexed: an address computed per load, ld.ca, 128-byte stride): memory levels",
                     cached)
    if direct and cached:
        by_name = {level["name"]: level for level in direct}
        costs = [f"{level['name']} {level['latency'] - by_name[level['name']]['latency']:+.1f}"
                 for level in cached if level["name"] in by_name]
        print("Address arithmetic (indexed minus load-to-use), cycles per load: " + ", ".join(costs) + "\n")
    sector = level_table(report, "PointerChase/cached", 32)
    if sector:
        print_levels("PointerChase/cached, 32-byte stride (four nodes per line)", sector)
    for family in ("PointerChase/direct_l2", "PointerChase/l2_only", "PointerChase/volatile", "PointerChase/shared_direct",
                   "PointerChase/shared"):
        points = latency_levels.points_from_json(report, family)
        ns = latency_levels.points_from_json(report, family, "ns_per_load")
        if points:
            print(f"- {family}: {points[0][1]:.1f} cycles ({ns[0][1]:.1f} ns) at {size_text(points[0][0])}, "
                  f"{points[-1][1]:.1f} cycles ({ns[-1][1]:.1f} ns) at {size_text(points[-1][0])}")
    print()
    tlb = tlb_levels(report)
    if tlb:
        print_levels("PointerChase/tlb (ld.cg, one node per 2 MiB page; data stays in L2; one step, least squares)", tlb,
                     "reach")
    edges = carveout_edges(report)
    if edges:
        print("### PointerChase/carveout: the L1 edge by preferred shared-memory carveout\n")
        print("| carveout (% shared) | L1 cycles | L1 holds up to | misses from | next level cycles |")
        print("|---:|---:|---|---|---:|")
        for percent, (first, next_latency, _) in edges.items():
            above = f"{next_latency:.1f}" if next_latency is not None else "-"
            print(f"| {percent} | {first['latency']:.1f} | {size_text(first['min_bytes'])} | "
                  f"{size_text(first['max_bytes']) if first['max_bytes'] else '-'} | {above} |")
        print()
    print_parallelism(report)


if __name__ == "__main__":
    sys.exit(main())
