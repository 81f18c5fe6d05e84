#!/usr/bin/env python3
"""GPU validation: does each experiment show the physics it exists to show? Wide margins on purpose:
this catches a broken experiment (a merged branch, an optimized-away chain), not a slow GPU.

Runs gpubench (or reads a JSON it wrote) and checks each family present. Exit 0 all pass, 1 a check
failed, 77 no GPU (skipped)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "analysis"))
import chase_summary  # noqa: E402
import latency_levels  # noqa: E402

SKIP = 77


def rows_by_name(report):
    """Mean over repetitions of every counter, keyed by benchmark run name."""
    values = defaultdict(lambda: defaultdict(list))
    for row in report["benchmarks"]:
        if row.get("run_type") == "aggregate" or row.get("error_occurred") or row.get("skipped"):
            continue
        for key, value in row.items():
            if isinstance(value, (int, float)):
                name = re.sub(r"/min_time:[^/]+", "", row["run_name"].replace("/manual_time", ""))
                values[name][key].append(float(value))
    return {name: {k: sum(v) / len(v) for k, v in counters.items()} for name, counters in values.items()}


def check_divergence(rows):
    """N distinct paths in one warp serialize: slowdown ~ N (here within 30%)."""
    results = []
    for name, counters in sorted(rows.items()):
        match = re.match(r"Divergence/Paths/paths:(\d+)", name)
        if not match:
            continue
        paths = int(match.group(1))
        slowdown = counters["slowdown"]
        ok = 0.7 * paths <= slowdown <= 1.3 * paths
        results.append((name, ok, f"slowdown {slowdown:.3f}, expected {paths} +-30%"))
    return results


def check_bank_conflicts(rows):
    """Every access pattern takes the wavefronts the bank model predicts (CUPTI, within 1%), and with the
    pipe saturated a load costs about its wavefronts: cycles per load ~ wavefronts x the conflict-free cost."""
    results = []
    base = rows.get("SharedBankConflict/Stride/bytes:4/stride:1", {}).get("cycles_per_load")
    for name, counters in sorted(rows.items()):
        if not name.startswith("SharedBankConflict/") or "predicted_wavefronts" not in counters:
            continue
        predicted = counters["predicted_wavefronts"]
        if "wavefronts_per_load" in counters:
            got = counters["wavefronts_per_load"]
            results.append((name + " wavefronts", abs(got - predicted) <= 0.01 * predicted,
                            f"{got:.3f} wavefronts per load, predicted {predicted:.0f}"))
        if base and predicted >= 2:
            ratio = counters["cycles_per_load"] / base
            results.append((name + " cycles", 0.5 * predicted <= ratio <= 1.5 * predicted,
                            f"{ratio:.2f}x the conflict-free cycles per load, expected ~{predicted:.0f}x"))
    return results


def check_strided(rows):
    """Stride >= 8 floats: every lane needs its own 32-byte sector (32 per request); stride 1: 4."""
    results = []
    for name, counters in sorted(rows.items()):
        match = re.match(r"StridedCopy/Gather/stride:(\d+)", name)
        if not match or "sectors_per_request" not in counters:
            continue
        stride = int(match.group(1))
        expected = min(32, 4 * stride)
        got = counters["sectors_per_request"]
        ok = 0.9 * expected <= got <= 1.1 * expected
        results.append((name, ok, f"{got:.2f} sectors per request, expected {expected}"))
    return results


def dram_stream_rows(rows, op):
    """The Stream/<op> rows far beyond L2 (chase_summary.dram_sized: within 4x of the largest set)."""
    ops = [(n, c) for n, c in rows.items() if n.startswith(f"Stream/{op}/") and "working_set_bytes" in c]
    return dict(chase_summary.dram_sized(ops, lambda item: item[1]["working_set_bytes"]))


def check_stream(rows):
    """Streams far beyond L2 move each byte once through DRAM; the read reaches a good share of the
    theoretical bandwidth (80% here, a wide margin) and the copy kernel is close to cudaMemcpy (within 10%)."""
    results = []
    for op in ("read", "write", "copy", "scale", "triad"):
        for name, counters in sorted(dram_stream_rows(rows, op).items()):
            for direction in ("read", "write"):
                key = f"dram_{direction}_normalized"
                if key in counters:
                    ok = 0.95 <= counters[key] <= 1.05
                    results.append((f"{name} DRAM {direction}", ok, f"{counters[key]:.3f} x the ideal bytes"))
    reads = dram_stream_rows(rows, "read")
    if reads:
        best = max(c.get("fraction_of_peak", 0) for c in reads.values())
        results.append(("Stream/read best fraction of peak", 0.8 <= best <= 1.0, f"{best:.3f} of theoretical"))
    copy = max((c["bytes_per_second"] for c in dram_stream_rows(rows, "copy").values()), default=None)
    memcpy = max((c["bytes_per_second"] for c in dram_stream_rows(rows, "memcpy").values()), default=None)
    if copy and memcpy:
        results.append(("Stream/copy against Stream/memcpy", 0.9 <= copy / memcpy <= 1.1,
                        f"{copy / 1e12:.2f} vs {memcpy / 1e12:.2f} TB/s ({copy / memcpy:.1%})"))
    return results


def check_cache_bandwidth(report):
    """The bandwidth staircase: L1 > L2 > DRAM, and L1 at least half the load path's 128 bytes/clock/SM."""
    levels = {level["name"]: level for level in chase_summary.bandwidth_levels(report)}
    if len(levels) < 3:
        return []
    l1, l2, dram = (levels[n]["bytes_per_second"] for n in ("L1", "L2", "DRAM"))
    per_sm = levels["L1"]["bytes_per_clock_per_sm"]
    return [("CacheBandwidth L1 > L2 > DRAM", l1 > 1.2 * l2 > 1.44 * dram,
             f"{l1 / 1e12:.2f} > {l2 / 1e12:.2f} > {dram / 1e12:.2f} TB/s"),
            ("CacheBandwidth L1 bytes per clock per SM", 64 <= per_sm <= 128, f"{per_sm:.1f} (load path: 128)")]


def check_load_ilp(rows):
    """One warp: 16 independent loads in flight move at least 4x the bytes of one (Little's law)."""
    one = rows.get("LoadILP/scalar/loads:1/warps:1", {}).get("bytes_per_second")
    sixteen = rows.get("LoadILP/scalar/loads:16/warps:1", {}).get("bytes_per_second")
    if not one or not sixteen:
        return []
    return [("LoadILP 16 loads against 1", sixteen >= 4 * one, f"{sixteen / one:.1f}x ({one / 1e9:.2f} -> "
                                                               f"{sixteen / 1e9:.2f} GB/s)")]


def check_instruction_pipeline(rows):
    """A dependent chain is >= 2x slower per op than 8 independent chains (one warp) on the
    arithmetic pipes, and FP32 FMA reaches >= 95% of its peak somewhere in the ILP x warps sweep."""
    results = []
    # IMAD runs at half rate (64 per SM per clock on sm_80/sm_90): one warp's independent IMADs
    # take 2 cycles each, so its 4-cycle dependent chain can be at most ~2x slower.
    for op, least in (("ffma", 2.0), ("fadd", 2.0), ("dfma", 2.0), ("hfma2", 2.0), ("imad", 1.5)):
        latency = rows.get(f"InstructionLatency/{op}", {}).get("cycles_per_op")
        ilp8 = rows.get(f"InstructionThroughput/{op}/ilp:8/warps:1", {}).get("cycles_per_op_per_thread")
        if latency and ilp8:
            ratio = latency / ilp8
            results.append((f"InstructionLatency/{op} vs ilp:8", ratio >= least,
                            f"dependent {latency:.2f} vs independent {ilp8:.2f} cycles per op: {ratio:.2f}x "
                            f"(need >= {least}x)"))
    ffma = [c.get("fraction_of_peak", 0) for n, c in rows.items() if n.startswith("InstructionThroughput/ffma/")]
    if ffma:
        best = max(ffma)
        results.append(("InstructionThroughput/ffma best cell", 0.95 <= best <= 1.01, f"{best:.3f} of peak"))
    over = [(n, c["fraction_of_peak"]) for n, c in rows.items()
            if n.startswith("InstructionThroughput/") and c.get("fraction_of_peak", 0) > 1.02]
    results.append(("no cell above its pipe's peak", not over, ", ".join(f"{n} {f:.2f}" for n, f in over) or "none"))
    return results


def check_occupancy(rows):
    """More live registers never raise occupancy; the stream is faster at the highest occupancy."""
    sweep = sorted((int(re.match(r"Occupancy/live:(\d+)", n).group(1)), c) for n, c in rows.items()
                   if re.match(r"Occupancy/live:\d+", n))
    if not sweep:
        return []
    occupancy = [c["theoretical_occupancy"] for _, c in sweep]
    monotonic = all(a >= b for a, b in zip(occupancy, occupancy[1:]))
    results = [("Occupancy theoretical", monotonic, " ".join(f"{live}:{c['theoretical_occupancy']:.1f}%"
                                                              for live, c in sweep))]
    fastest, slowest = sweep[0][1]["bytes_per_second"], sweep[-1][1]["bytes_per_second"]
    results.append(("Occupancy bandwidth", fastest > 1.5 * slowest,
                    f"{fastest / 1e9:.0f} GB/s at {occupancy[0]:.1f}% vs {slowest / 1e9:.0f} GB/s at {occupancy[-1]:.1f}%"))
    return results


def check_pointer_chase(rows):
    """The cached chase shows at least three levels, each slower than the one before (L1 < L2 < DRAM)."""
    points = sorted((c["working_set_bytes"], c["cycles_per_load"]) for n, c in rows.items()
                    if n.startswith("PointerChase/cached/") and "cycles_per_load" in c and c.get("stride_bytes") == 128)
    if not points:
        return []
    levels = latency_levels.find_levels(points)
    latencies = [level["latency"] for level in levels]
    ok = len(levels) >= 3 and latencies[0] > 0 and all(a < b for a, b in zip(latencies, latencies[1:]))
    return [("PointerChase/cached levels", ok, latency_levels.describe(levels, "cycles").replace("\n", "; "))]


def check_chase_counters(rows):
    """CUPTI agrees with the latency levels: a set of a few MiB (past L1, well inside L2) hits L2 on
    nearly every load, a 1 GiB set almost never, and no hit rate leaves 0..100%."""
    chase = [(c["working_set_bytes"], n, c["l2_hit_rate"]) for n, c in rows.items()
             if n.startswith("PointerChase/") and "l2_hit_rate" in c and "working_set_bytes" in c]
    if not chase:
        return []
    results = []
    bad = [f"{n} {rate:.1f}%" for _, n, rate in chase if not 0.0 <= rate <= 100.0]
    results.append(("PointerChase l2_hit_rate within 0..100%", not bad, ", ".join(bad) or f"{len(chase)} rows"))
    for low, high, test, want in ((1 << 20, 4 << 20, lambda r: r >= 90.0, ">= 90%"),
                                  (1 << 30, float("inf"), lambda r: r <= 10.0, "<= 10%")):
        for size, name, rate in sorted(chase):
            if low <= size <= high and name.startswith(("PointerChase/cached/", "PointerChase/l2_only/")):
                results.append((name, test(rate), f"l2_hit_rate {rate:.2f}% (want {want})"))
    return results


def check_shared_and_tlb(rows):
    """Shared memory is faster than any L2 hit; sets spread over more pages than the nearest TLB maps are
    slower (on Hopper with 2 MiB pages by only 2-3% of an L2 hit, hence a 1% margin on medians)."""
    results = []
    shared = [c["cycles_per_load"] for n, c in rows.items() if n.startswith("PointerChase/shared/")]
    l2 = [c["cycles_per_load"] for n, c in rows.items() if n.startswith("PointerChase/l2_only/")]
    if shared and l2:
        results.append(("PointerChase/shared below L2", max(shared) < 0.5 * min(l2),
                        f"shared {min(shared):.1f}..{max(shared):.1f} cycles, ld.cg at least {min(l2):.1f}"))
    # Two levels (docs/experiments/pointer_chase.md): up to 512 MiB every page in the nearest TLB, from
    # 768 MiB not. Medians of each side, not the end points: the 32 MiB set is 16 nodes, and on 9 stored
    # runs the end points differed by 0.7-5.7% where the medians differ by 1.3-3.1%.
    near = [c["cycles_per_load"] for n, c in rows.items()
            if n.startswith("PointerChase/tlb/") and c["working_set_bytes"] <= 512 * 2**20]
    far = [c["cycles_per_load"] for n, c in rows.items()
           if n.startswith("PointerChase/tlb/") and c["working_set_bytes"] >= 2**30]
    if near and far:
        near_cycles, far_cycles = statistics.median(near), statistics.median(far)
        results.append(("PointerChase/tlb misses cost", far_cycles > 1.01 * near_cycles,
                        f"median {near_cycles:.1f} cycles up to 512 MiB ({len(near)} sets), {far_cycles:.1f} "
                        f"from 1 GiB ({len(far)} sets): {far_cycles / near_cycles - 1:+.1%}"))
    return results


def check_carveout(rows):
    """More shared memory leaves less L1: the L1 edge at 0% shared lies above the one at 100%."""
    edges = {}
    for percent in (0, 100):
        points = sorted((c["working_set_bytes"], c["cycles_per_load"]) for n, c in rows.items()
                        if n.startswith("PointerChase/carveout/") and c.get("carveout_percent") == percent)
        levels = latency_levels.find_levels(points) if points else []
        if levels:
            edges[percent] = levels[0]["min_bytes"]
    if len(edges) < 2:
        return []
    return [("PointerChase/carveout moves the L1 edge", edges[0] > edges[100],
             f"L1 holds {edges[0] / 1024:.0f} KiB at 0% shared, {edges[100] / 1024:.0f} KiB at 100%")]


def check_memory_parallelism(report):
    """Enough chains in flight reach at least 80% of what the read-only stream moves (Little's law)."""
    _, best = chase_summary.parallelism_summary(report)
    stream, label = chase_summary.stream_reference(report)  # as the card reads it
    if not best or not stream:
        return []
    rate = best["bytes_per_second"]
    return [(f"MemoryParallelism reaches the {label}", rate >= 0.8 * stream,
             f"{rate / 1e12:.2f} TB/s ({best['run_name']}) = {rate / stream:.1%} of {stream / 1e12:.2f} TB/s")]


def check_chase_spread(report):
    """Each memory level's latency varies by under 2% across repetitions (needs --benchmark_repetitions)."""
    levels = chase_summary.level_table(report, "PointerChase/cached", 128)
    spread = [level for level in levels if level["repetitions"] > 1]
    if not spread:
        return []
    worst = max(level["spread"] for level in spread)
    detail = "; ".join(f"{level['name']} {level['spread']:.2%}" for level in spread)
    return [(f"PointerChase/cached spread over {spread[0]['repetitions']} repetitions", worst < 0.02, detail)]


CHECKS = [check_pointer_chase, check_chase_counters, check_shared_and_tlb, check_carveout, check_divergence,
          check_bank_conflicts, check_strided, check_stream, check_load_ilp, check_instruction_pipeline, check_occupancy]
REPORT_CHECKS = [check_chase_spread, check_memory_parallelism, check_cache_bandwidth]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gpubench", help="gpubench binary to run")
    parser.add_argument("--json", nargs="+", help="check these gpubench JSON files (merged) instead of running")
    parser.add_argument("--out", help="where a fresh run writes its JSON", default="validation.json")
    parser.add_argument("--filter", default="Divergence|SharedBankConflict|StridedCopy|Stream/|CacheBandwidth|LoadILP|"
                                            "Instruction|RegisterBankConflict|Occupancy|PointerChase|MemoryParallelism")
    args = parser.parse_args()

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

    reports = []
    for path in paths:
        with open(path) as f:
            reports.append(json.load(f))
    results = []
    for gpu, report in chase_summary.devices_of(chase_summary.merge(reports)):  # several GPUs: each in turn
        rows = rows_by_name(report)
        checked = [r for check in CHECKS for r in check(rows)] + [r for check in REPORT_CHECKS for r in check(report)]
        results += [(name if gpu is None else f"gpu:{gpu} {name}", ok, detail) for name, ok, detail in checked]
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
