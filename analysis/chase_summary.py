#!/usr/bin/env python3
"""Summary of gpubench's pointer-chase experiments, as Markdown, from one or more gpubench JSON files:

- memory levels of the cached chase (128-byte stride): latency in cycles and ns, capacity bounds, and
  the spread of each level's latency over repetitions (levels by analysis/model/levels.py's staircase rule);
- shared-memory chase latency; L2-only and volatile paths at the smallest and largest sets;
- TLB reach (2 MiB page strides) and the L1 edge under each L1/shared carveout (same rule);
- MemoryParallelism: bandwidth per chains x warps, the best against the stream copy's bandwidth.

    chase_summary.py run.json [more.json ...]
"""
import argparse
import os
import sys

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import cli  # noqa: E402
from analysis.model import levels  # noqa: E402
from analysis.cards.families import memory_parallelism, memory_parallelism_cpu, pointer_chase, stream  # noqa: E402
from analysis.model.values import MIB, mean_rows, size_text  # noqa: E402


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


def print_parallelism(report):
    for family, column, unit, scale in (("MemoryParallelism/one_sm", "threads", "GB/s", 1e9),
                                        ("MemoryParallelism/gpu", "warps_per_sm", "TB/s", 1e12),
                                        ("MemoryParallelismCPU/chase", "threads", "GB/s", 1e9)):
        rows = mean_rows(report.rows(family, "bytes_per_second"))
        if not rows:
            continue
        cells = {(r["args"]["chains"], r["args"][column]): r for r in rows}
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
    _, best = memory_parallelism.whole_gpu(report)
    if best:
        print(f"Best: {best['bytes_per_second'] / 1e12:.2f} TB/s at {best['run_name']} "
              f"({best['loads_in_flight']:.0f} lines in flight, {best['bytes_in_flight'] / MIB:.1f} MiB; "
              f"implied latency {best['implied_latency_ns']:.0f} ns, block 0 saw {best['ns_per_step']:.0f} ns "
              f"per step; DRAM read / ideal {best.get('dram_read_normalized', float('nan')):.3f}).")
        rate, label = stream.reference(report)
        if rate:
            print(f"The {label}'s best: {rate / 1e12:.2f} TB/s; the chase reaches "
                  f"**{best['bytes_per_second'] / rate:.1%}** of it.")
        print()
    host, read = memory_parallelism_cpu.best(report)
    if host:
        print(f"Host: best chase {host['bytes_per_second'] / 1e9:.2f} GB/s at {host['run_name']} "
              f"({host['loads_in_flight']:.0f} lines in flight, {host['ns_per_load_per_chain']:.0f} ns per load per "
              f"chain)" + (f"; the host's plain read of the same buffer: {read / 1e9:.2f} GB/s, so the chase reaches "
                           f"**{host['bytes_per_second'] / read:.1%}** of it." if read else "."))
        single = levels.chase_rows(report, "PointerChaseCPU", "ns_per_load")
        if single:
            largest = max(single, key=levels.working_set)
            print(f"One chain alone (PointerChaseCPU at {size_text(levels.working_set(largest))}): "
                  f"{float(largest['ns_per_load']):.0f} ns per load; Little's law on the best host row implies "
                  f"{host['implied_latency_ns']:.0f} ns.")
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    args = parser.parse_args()
    for gpu, report in cli.load(args.json).devices():  # a run over several GPUs: each in turn
        if gpu is not None:
            print(f"# GPU {gpu}\n")
        summarize(report)
    return 0


def summarize(report):
    context = report.context
    print(f"Device: {context.get('gpu_name', '?')}, SM clock {context.get('gpu_sm_clock_mhz_measured', '?')} MHz\n")

    direct = pointer_chase.level_table(report, "PointerChase/direct", 128)
    if direct:
        print_levels("PointerChase/direct (load-to-use: p = *p, ld.ca.u64, 128-byte stride): memory levels", direct)
    cached = pointer_chase.level_table(report, "PointerChase/cached", 128)
    if cached:
        print_levels("PointerChase/cached (indexed: an address computed per load, ld.ca, 128-byte stride): memory levels",
                     cached)
    if direct and cached:
        by_name = {level["name"]: level for level in direct}
        costs = [f"{level['name']} {level['latency'] - by_name[level['name']]['latency']:+.1f}"
                 for level in cached if level["name"] in by_name]
        print("Address arithmetic (indexed minus load-to-use), cycles per load: " + ", ".join(costs) + "\n")
    sector = pointer_chase.level_table(report, "PointerChase/cached", 32)
    if sector:
        print_levels("PointerChase/cached, 32-byte stride (four nodes per line)", sector)
    for family in ("PointerChase/direct_l2", "PointerChase/l2_only", "PointerChase/volatile", "PointerChase/shared_direct",
                   "PointerChase/shared"):
        points = levels.points(report, family)
        ns = levels.points(report, family, "ns_per_load")
        if points:
            print(f"- {family}: {points[0][1]:.1f} cycles ({ns[0][1]:.1f} ns) at {size_text(points[0][0])}, "
                  f"{points[-1][1]:.1f} cycles ({ns[-1][1]:.1f} ns) at {size_text(points[-1][0])}")
    print()
    tlb = pointer_chase.tlb_levels(report)
    if tlb:
        print_levels("PointerChase/tlb (ld.cg, one node per 2 MiB page; data stays in L2; one step, least squares)", tlb,
                     "reach")
    edges = pointer_chase.carveout_edges(report)
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
    sys.exit(cli.main(main))
