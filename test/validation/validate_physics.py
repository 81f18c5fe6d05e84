#!/usr/bin/env python3
"""GPU validation: does each experiment show the physics it exists to show? Wide margins on purpose:
this catches a broken experiment (a merged branch, an optimized-away chain), not a slow GPU.

Runs gpubench (or reads a JSON it wrote) and checks each family present. Exit 0 all pass, 1 a check
failed, 77 no GPU (skipped)."""
import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from analysis import cli, levels  # noqa: E402
from analysis.families import cache_bandwidth, memory_parallelism, pointer_chase, stream  # noqa: E402
from analysis.values import mean_rows, short  # noqa: E402

SKIP = 77


class Case(dict):
    """One case's counters averaged over its repetitions, with its registered name and arguments."""

    def __init__(self, merged, registered):
        super().__init__(merged)
        self.args = merged["args"]
        self.registered = registered
        self.name = short(merged["run_name"])


def rows_by_name(report):
    """Every case of the run (repetitions averaged), keyed by its run name."""
    registered = {row["run_name"]: row.registered for row in report.rows()}
    return {m["run_name"]: Case(m, registered[m["run_name"]]) for m in mean_rows(report.rows())}


def cases(rows, registered, **args):
    """The cases registered as `registered` whose arguments equal `args`."""
    return [c for c in rows.values() if c.registered == registered
            and all(c.args.get(k) == v for k, v in args.items())]


def one(rows, registered, **args):
    """The counters of the one case registered as `registered` with `args`, or {}."""
    found = cases(rows, registered, **args)
    return found[0] if found else {}


def check_divergence(rows):
    """N distinct paths in one warp serialize: slowdown ~ N (here within 30%)."""
    results = []
    for counters in sorted(cases(rows, "Divergence/Paths"), key=lambda c: c.name):
        name, paths = counters.name, int(counters.args["paths"])
        slowdown = counters["slowdown"]
        ok = 0.7 * paths <= slowdown <= 1.3 * paths
        results.append((name, ok, f"slowdown {slowdown:.3f}, expected {paths} +-30%"))
    return results


def check_register_banks(rows):
    """No operand reuse: an FFMA reads its three sources from two banks, so it takes at least ~2 cycles
    (one warp); with its sources in one bank it takes longer still."""
    one_bank = one(rows, "RegisterBankConflict/ffma_one_bank", threads=32).get("cycles_per_fma")
    spread = one(rows, "RegisterBankConflict/ffma_spread", threads=32).get("cycles_per_fma")
    if not one_bank or not spread:
        return []
    return [("RegisterBankConflict spread FFMA without reuse", 1.7 <= spread <= 3.0, f"{spread:.2f} cycles per FFMA"),
            ("RegisterBankConflict one bank slower than spread", one_bank >= spread + 0.2,
             f"{one_bank:.2f} vs {spread:.2f} cycles per FFMA")]


def check_bank_conflicts(rows):
    """Every access pattern takes the wavefronts the bank model predicts (CUPTI, within 1%), and with the
    pipe saturated a load costs about its wavefronts: cycles per load ~ wavefronts x the conflict-free cost."""
    results = []
    base = one(rows, "SharedBankConflict/Stride", bytes=4, stride=1).get("cycles_per_load")
    for counters in sorted(rows.values(), key=lambda c: c.name):
        if not counters.registered.startswith("SharedBankConflict/") or "predicted_wavefronts" not in counters:
            continue
        name = counters.name
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
    for counters in sorted(cases(rows, "StridedCopy/Gather"), key=lambda c: c.args["stride"]):
        if "sectors_per_request" not in counters:
            continue
        name, stride = counters.name, int(counters.args["stride"])
        expected = min(32, 4 * stride)
        got = counters["sectors_per_request"]
        ok = 0.9 * expected <= got <= 1.1 * expected
        results.append((name, ok, f"{got:.2f} sectors per request, expected {expected}"))
    return results


def dram_stream_rows(rows, op):
    """The Stream/<op> rows far beyond L2 (stream.dram_sized: within 4x of the largest set)."""
    ops = [(c.name, c) for c in cases(rows, f"Stream/{op}") if "working_set_bytes" in c]
    return dict(stream.dram_sized(ops, lambda item: item[1]["working_set_bytes"]))


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
    found = {cache_bandwidth.KEYS[level["name"]]: level for level in cache_bandwidth.plateaus(report)}
    if not {"l1", "l2", "dram"} <= found.keys():
        return []
    l1, l2, dram = (found[n]["bytes_per_second"] for n in ("l1", "l2", "dram"))
    per_sm = found["l1"]["bytes_per_clock_per_sm"]
    results = [("CacheBandwidth L1 > L2 > DRAM", l1 > 1.2 * l2 > 1.44 * dram,
                f"{l1 / 1e12:.2f} > {l2 / 1e12:.2f} > {dram / 1e12:.2f} TB/s"),
               ("CacheBandwidth L1 bytes per clock per SM", 64 <= per_sm <= 128, f"{per_sm:.1f} (load path: 128)")]
    if "l2_shared" in found:  # one set all SMs share: requests merge before the slices, so at least as fast
        shared = found["l2_shared"]["bytes_per_second"]
        results.append(("CacheBandwidth L2 shared set >= private", shared >= 0.95 * l2,
                        f"{shared / 1e12:.2f} vs {l2 / 1e12:.2f} TB/s"))
    return results


def check_load_ilp(rows):
    """One warp: 16 independent loads in flight move at least 4x the bytes of one (Little's law)."""
    single = one(rows, "LoadILP/scalar", loads=1, warps=1).get("bytes_per_second")
    sixteen = one(rows, "LoadILP/scalar", loads=16, warps=1).get("bytes_per_second")
    if not single or not sixteen:
        return []
    return [("LoadILP 16 loads against 1", sixteen >= 4 * single, f"{sixteen / single:.1f}x ({single / 1e9:.2f} -> "
                                                                  f"{sixteen / 1e9:.2f} GB/s)")]


def check_instruction_pipeline(rows):
    """A dependent chain is >= 2x slower per op than 8 independent chains (one warp) on the
    arithmetic pipes, and FP32 FMA reaches >= 95% of its peak somewhere in the ILP x warps sweep."""
    results = []
    # IMAD runs at half rate (64 per SM per clock on sm_80/sm_90): one warp's independent IMADs
    # take 2 cycles each, so its 4-cycle dependent chain can be at most ~2x slower.
    for op, least in (("ffma", 2.0), ("fadd", 2.0), ("dfma", 2.0), ("hfma2", 2.0), ("imad", 1.5)):
        latency = one(rows, f"InstructionLatency/{op}").get("cycles_per_op")
        ilp8 = one(rows, f"InstructionThroughput/{op}", ilp=8, warps=1).get("cycles_per_op_per_thread")
        if latency and ilp8:
            ratio = latency / ilp8
            results.append((f"InstructionLatency/{op} vs ilp:8", ratio >= least,
                            f"dependent {latency:.2f} vs independent {ilp8:.2f} cycles per op: {ratio:.2f}x "
                            f"(need >= {least}x)"))
    ffma = [c.get("fraction_of_peak", 0) for c in cases(rows, "InstructionThroughput/ffma")]
    if ffma:
        best = max(ffma)
        results.append(("InstructionThroughput/ffma best cell", 0.95 <= best <= 1.01, f"{best:.3f} of peak"))
    over = [(c.name, c["fraction_of_peak"]) for c in rows.values()
            if c.registered.startswith("InstructionThroughput/") and c.get("fraction_of_peak", 0) > 1.02]
    results.append(("no cell above its pipe's peak", not over, ", ".join(f"{n} {f:.2f}" for n, f in over) or "none"))
    return results


def check_occupancy(rows):
    """More live registers never raise occupancy; the stream is faster at the highest occupancy."""
    sweep = sorted(((int(c.args["live"]), c) for c in cases(rows, "Occupancy") if "live" in c.args),
                   key=lambda item: item[0])
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
    points = sorted((float(c.args["bytes"]), c["cycles_per_load"]) for c in cases(rows, "PointerChase/cached", stride=128)
                    if "cycles_per_load" in c)
    if not points:
        return []
    found = levels.find_levels(points)
    latencies = [level["latency"] for level in found]
    ok = len(found) >= 3 and latencies[0] > 0 and all(a < b for a, b in zip(latencies, latencies[1:]))
    return [("PointerChase/cached levels", ok, levels.describe(found, "cycles").replace("\n", "; "))]


def check_chase_counters(rows):
    """CUPTI agrees with the latency levels: a set of a few MiB (past L1, well inside L2) hits L2 on
    nearly every load, a 1 GiB set almost never, and no hit rate leaves 0..100%."""
    chase = [(float(c.args["bytes"]), c.name, c["l2_hit_rate"], c.registered) for c in rows.values()
             if c.registered.startswith("PointerChase/") and "l2_hit_rate" in c and "bytes" in c.args]
    if not chase:
        return []
    results = []
    bad = [f"{n} {rate:.1f}%" for _, n, rate, _ in chase if not 0.0 <= rate <= 100.0]
    results.append(("PointerChase l2_hit_rate within 0..100%", not bad, ", ".join(bad) or f"{len(chase)} rows"))
    for low, high, test, want in ((1 << 20, 4 << 20, lambda r: r >= 90.0, ">= 90%"),
                                  (1 << 30, float("inf"), lambda r: r <= 10.0, "<= 10%")):
        for size, name, rate, registered in sorted(chase):
            if low <= size <= high and registered in ("PointerChase/cached", "PointerChase/l2_only"):
                results.append((name, test(rate), f"l2_hit_rate {rate:.2f}% (want {want})"))
    return results


def check_shared_and_tlb(rows):
    """Shared memory is faster than any L2 hit; sets spread over more pages than the nearest TLB maps are
    slower (on Hopper with 2 MiB pages by only 2-3% of an L2 hit, hence a 1% margin on medians)."""
    results = []
    shared = [c["cycles_per_load"] for c in cases(rows, "PointerChase/shared")]
    l2 = [c["cycles_per_load"] for c in cases(rows, "PointerChase/l2_only")]
    if shared and l2:
        results.append(("PointerChase/shared below L2", max(shared) < 0.5 * min(l2),
                        f"shared {min(shared):.1f}..{max(shared):.1f} cycles, ld.cg at least {min(l2):.1f}"))
    # Two levels (docs/experiments/pointer_chase.md): up to 512 MiB every page in the nearest TLB, from
    # 768 MiB not. Medians of each side, not the end points: the 32 MiB set is 16 nodes, and on 9 stored
    # runs the end points differed by 0.7-5.7% where the medians differ by 1.3-3.1%.
    near = [c["cycles_per_load"] for c in cases(rows, "PointerChase/tlb") if c.args["bytes"] <= 512 * 2**20]
    far = [c["cycles_per_load"] for c in cases(rows, "PointerChase/tlb") if c.args["bytes"] >= 2**30]
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
        points = sorted((float(c.args["bytes"]), c["cycles_per_load"])
                        for c in cases(rows, "PointerChase/carveout", carveout=percent))
        found = levels.find_levels(points) if points else []
        if found:
            edges[percent] = found[0]["min_bytes"]
    if len(edges) < 2:
        return []
    return [("PointerChase/carveout moves the L1 edge", edges[0] > edges[100],
             f"L1 holds {edges[0] / 1024:.0f} KiB at 0% shared, {edges[100] / 1024:.0f} KiB at 100%")]


def check_memory_parallelism(report):
    """Enough chains in flight reach at least 80% of what the read-only stream moves (Little's law)."""
    _, best = memory_parallelism.whole_gpu(report)
    reference, label = stream.reference(report)  # as the card reads it
    if not best or not reference:
        return []
    rate = best["bytes_per_second"]
    return [(f"MemoryParallelism reaches the {label}", rate >= 0.8 * reference,
             f"{rate / 1e12:.2f} TB/s ({best['run_name']}) = {rate / reference:.1%} of {reference / 1e12:.2f} TB/s")]


def check_chase_spread(report):
    """Each memory level's latency varies by under 2% across repetitions (needs --benchmark_repetitions)."""
    spread = [level for level in pointer_chase.level_table(report, "PointerChase/cached", 128)
              if level["repetitions"] > 1]
    if not spread:
        return []
    worst = max(level["spread"] for level in spread)
    detail = "; ".join(f"{level['name']} {level['spread']:.2%}" for level in spread)
    return [(f"PointerChase/cached spread over {spread[0]['repetitions']} repetitions", worst < 0.02, detail)]


def check_tensor_cores(rows):
    """No row beats the architecture's tensor peak by more than the timing's noise (2%); the hardware's
    operation count equals the rows' own (2 per multiply-add); wgmma at N = 256 reaches 90% of peak;
    a dependent mma.sync chain takes 10-100 cycles per instruction; zero operands run no slower than
    random ones."""
    results = []
    ops_counters = [k for k in ("tensor_ops_f16", "tensor_ops_bf16", "tensor_ops_tf32", "tensor_ops_fp8",
                                "tensor_ops_s8", "tensor_ops_f64")]
    for counters in sorted(rows.values(), key=lambda c: c.name):
        if not counters.registered.startswith("TensorCore/") or "fraction_of_peak" not in counters:
            continue
        name, fraction = counters.name, counters["fraction_of_peak"]
        results.append((name + " under peak", fraction <= 1.02, f"{fraction:.3f} of peak"))
        counted = next((counters[k] for k in ops_counters if k in counters), None)
        if counted and "tensor_tops" in counters:
            ours = counters["tensor_ops_per_clock_per_sm"] * counters["cycles"]  # per SM per launch
            sms = counted / ours
            results.append((name + " ops counted", abs(sms - round(sms)) < 0.01 * sms,
                            f"hardware ops / the row's ops per SM = {sms:.3f} SMs"))
        if counters.registered.startswith("TensorCore/wgmma_") and counters.args.get("n") == 256 \
                and "latency" not in counters.registered:
            results.append((name + " near peak", fraction >= 0.9, f"{fraction:.3f} of peak (>= 0.9)"))
    for counters in cases(rows, "TensorCore/mma_sync_f16_f32", chains=1, warps=1):
        cycles = counters["cycles_per_mma"]
        results.append((counters.name + " latency", 10 <= cycles <= 100, f"{cycles:.1f} cycles per mma"))
    for zero in [c for c in rows.values() if c.registered.startswith("TensorCore/wgmma_") and c.args.get("operands") == 0]:
        random = one(rows, zero.registered, n=zero.args["n"], warpgroups=zero.args["warpgroups"], operands=1)
        if random:
            results.append((zero.name + " no slower than random", zero["tensor_tops"] >= 0.98 * random["tensor_tops"],
                            f"{zero['tensor_tops']:.0f} vs {random['tensor_tops']:.0f} T/s"))
    return results


def check_data_movers(rows):
    """Another block's shared memory is 3-20x farther than the block's own and slower to stream; a TMA or
    bulk step costs at least a plain load of the same line (90%), more from DRAM than from L2 and more for
    a bigger tile (within 2%); a cp.async step at least a load and store through registers (95%); no
    DRAM-sized row moves more than the theoretical bandwidth (2% for timing noise)."""
    results = []
    local = one(rows, "Cluster/smem_latency")
    for remote in cases(rows, "Cluster/dsmem_latency"):
        if local and remote.args.get("rank", 0) > 0:
            ratio = remote["cycles_per_load"] / local["cycles_per_load"]
            results.append((remote.name + " farther than own", 3 <= ratio <= 20, f"{ratio:.1f}x ld.shared"))
    for remote in cases(rows, "Cluster/dsmem_bandwidth"):
        own = one(rows, "Cluster/dsmem_bandwidth", cluster=1, width=remote.args["width"], write=remote.args["write"])
        if own and remote.args["cluster"] > 1:
            results.append((remote.name + " below own", remote["bytes_per_clock_per_block"] < own["bytes_per_clock_per_block"],
                            f"{remote['bytes_per_clock_per_block']:.1f} vs {own['bytes_per_clock_per_block']:.1f} B/clk"))
    for step in ("tma_latency", "bulk_latency"):
        by_set = {}
        for row in cases(rows, f"AsyncCopy/{step}"):
            by_set.setdefault(row.args["bytes"], []).append(row)
            load = one(rows, "AsyncCopy/load_to_use_latency", bytes=row.args["bytes"])
            if load and row.args["tile"] == 128:
                results.append((row.name + " not faster than a load", row["cycles_per_load"] >= 0.9 * load["cycles_per_load"],
                                f"{row['cycles_per_load']:.0f} vs {load['cycles_per_load']:.0f} cycles"))
        for tiles in by_set.values():
            tiles.sort(key=lambda r: r.args["tile"])
            for small, big in zip(tiles, tiles[1:]):
                results.append((big.name + " no cheaper than a smaller tile",
                                big["cycles_per_load"] >= 0.98 * small["cycles_per_load"],
                                f"{big['cycles_per_load']:.0f} vs {small['cycles_per_load']:.0f} cycles"))
        if len(by_set) > 1:
            near, far = min(by_set), max(by_set)
            for row in by_set[far]:
                same = [r for r in by_set[near] if r.args["tile"] == row.args["tile"]]
                if same:
                    results.append((row.name + " DRAM above L2", row["cycles_per_load"] > same[0]["cycles_per_load"],
                                    f"{row['cycles_per_load']:.0f} vs {same[0]['cycles_per_load']:.0f} cycles"))
    for via, reference in (("cp_async_ca", "ld_st_ca"), ("cp_async_cg", "ld_st_cg")):
        for row in cases(rows, f"AsyncCopy/copy_latency_{via}"):
            plain = one(rows, f"AsyncCopy/copy_latency_{reference}", bytes=row.args["bytes"], width=row.args["width"])
            if plain:
                results.append((row.name + " not faster than load + store", row["cycles_per_copy"] >= 0.95 * plain["cycles_per_copy"],
                                f"{row['cycles_per_copy']:.0f} vs {plain['cycles_per_copy']:.0f} cycles"))
    for row in rows.values():
        if row.registered.startswith("AsyncCopy/") and "fraction_of_peak" in row:
            results.append((row.name + " under the DRAM peak", row["fraction_of_peak"] <= 1.02, f"{row['fraction_of_peak']:.3f}"))
    return results


def check_energy(rows):
    """Energy per unit is positive; random data costs at least zeros (2% noise); more work costs more: FP64
    more per FLOP than FP32, FP32 more than the FP16 tensor core, a DRAM bit more than an L2 bit, an L2 bit more
    than an L1 bit, and the same bits in 4-byte loads at least what they cost in 16-byte loads."""
    results = []
    for row in rows.values():
        if not row.registered.startswith("Energy/"):
            continue
        metric = "pj_per_flop" if "pj_per_flop" in row else "pj_per_bit"
        if metric not in row:
            continue
        results.append((row.name + " positive", row[metric] > 0, f"{row[metric]:.3f} pJ"))
        if row.args.get("operands") == 1:
            same = {k: v for k, v in row.args.items() if k != "operands"}
            zero = one(rows, row.registered, operands=0, **same)
            if zero:
                results.append((row.name + " random >= zero", row[metric] >= 0.98 * zero[metric],
                                f"{row[metric]:.3f} vs {zero[metric]:.3f} pJ"))
    wide = {"operands": 1, "width": 16}
    for high, low, metric, high_args, low_args in (
            ("Energy/dfma", "Energy/ffma", "pj_per_flop", {"operands": 1}, {"operands": 1}),
            ("Energy/ffma", "Energy/wgmma_f16", "pj_per_flop", {"operands": 1}, {"operands": 1}),
            ("Energy/ffma", "Energy/mma_sync_f16", "pj_per_flop", {"operands": 1}, {"operands": 1}),
            ("Energy/dram_read", "Energy/l2_read", "pj_per_bit", wide, wide),
            ("Energy/l2_read", "Energy/l1_read", "pj_per_bit", wide, {"operands": 1}),
            ("Energy/l2_read", "Energy/l2_read", "pj_per_bit", {"operands": 1, "width": 4}, wide),
            ("Energy/dram_read", "Energy/dram_read", "pj_per_bit", {"operands": 1, "width": 4}, wide)):
        a, b = one(rows, high, **high_args), one(rows, low, **low_args)
        if a and b and metric in a and metric in b:
            results.append((f"{a.name} above {b.name}", a[metric] > 0.98 * b[metric],
                            f"{a[metric]:.3f} vs {b[metric]:.3f} pJ"))
    return results


CHECKS = [check_pointer_chase, check_chase_counters, check_shared_and_tlb, check_carveout, check_divergence,
          check_bank_conflicts, check_strided, check_stream, check_load_ilp, check_instruction_pipeline, check_occupancy,
          check_register_banks, check_tensor_cores, check_data_movers, check_energy]
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

    try:
        run = cli.load(paths)
    except cli.UsageError as e:
        return cli.fail(str(e))
    results = []
    for gpu, report in run.devices():  # several GPUs: each in turn
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
