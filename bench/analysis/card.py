#!/usr/bin/env python3
"""The micro-architecture card of one gpubench run: what the chip's experiments concluded, each value
naming the benchmark row(s) it came from, "not measured" where the run had no such row.

    card.py run.json [more.json ...] [--out PREFIX] [--plots]   writes PREFIX.md and PREFIX.json
    card.py --compare a.card.json b.card.json [--tolerance 0.02]  values the two cards share, side by side

gpubench runs this at the end of a run written with --benchmark_out (PREFIX defaults to FILE.card).
The rules live in one place each: memory levels, TLB reach and carveout edges in latency_levels.py and
chase_summary.py (the staircase rule), the rest below.
"""
import argparse
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chase_summary  # noqa: E402
import latency_levels  # noqa: E402

NOT_MEASURED = "not measured"
SECTIONS = ["Memory latency", "TLB and carveout", "Compute", "Control flow and shared memory", "Bandwidth",
            "Memory-level parallelism", "Interconnect", "A kernel under the microscope: Normalize"]
INSTRUCTIONS = [("ffma", "FP32 FMA"), ("dfma", "FP64 FMA"), ("hfma2", "FP16x2 FMA"), ("rsqrt", "MUFU rsqrt"),
                ("ex2", "MUFU ex2"), ("sin", "MUFU sin")]


def rows_of(report, family, metric):
    return latency_levels.family_rows(report, family, metric)


def short(name):
    """A row's name without Google Benchmark's time suffix."""
    return re.sub(r"/(manual_time|real_time)$", "", name)


def span(family, sizes, rest=""):
    """"PointerChase/cached/bytes:16384..196608/stride:128 (4 rows)"."""
    sizes = sorted(int(s) for s in sizes)
    text = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}..{sizes[-1]}"
    return f"{family}/bytes:{text}{rest} ({len(sizes)} row{'s' if len(sizes) > 1 else ''})"


class Card:
    def __init__(self, report):
        self.report = report
        self.context = report.get("context", {})
        self.values = []

    def add(self, key, section, label, value, unit, source, text=None, bracket=None):
        """bracket: for a capacity, [last size below the edge, first size past it]: a sweep resolves an
        edge only to its grid, so two runs agree when their brackets meet."""
        entry = {"key": key, "section": section, "label": label, "value": value, "unit": unit, "source": source,
                 "text": text}
        if bracket:
            entry["bracket"] = [float(b) for b in bracket]
        self.values.append(entry)

    def missing(self, key, section, label, unit=""):
        self.add(key, section, label, None, unit, None)

    # --- the rules -------------------------------------------------------------------------------
    def memory(self):
        """Load-to-use latency per level from the direct chase (`p = *p`), the indexed chase's reading
        beside it, and their difference: the address arithmetic the indexed loop adds per load."""
        section = "Memory latency"
        direct = {l["name"]: l for l in chase_summary.level_table(self.report, "PointerChase/direct", 128)}
        indexed = {l["name"]: l for l in chase_summary.level_table(self.report, "PointerChase/cached", 128)}
        for name in ("L1", "L2", "L2 (far)", "DRAM"):
            key = "memory." + name.lower().replace(" (far)", "_far")
            level, index_level = direct.get(name), indexed.get(name)
            if level is None:
                if name != "L2 (far)":
                    self.missing(key + ".cycles", section, f"{name} load-to-use latency", "cycles")
            else:
                source = span("PointerChase/direct", level["sizes"], "/stride:128")
                self.add(key + ".cycles", section, f"{name} load-to-use latency", level["latency"], "cycles", source,
                         f"{level['latency']:.1f} cycles, {level['ns']:.1f} ns")
                self.add(key + ".ns", section, f"{name} load-to-use latency (ns)", level["ns"], "ns", source)
                if level["max_bytes"] is not None:
                    self.add(key + ".capacity_bytes", section, f"{name} capacity edge", level["min_bytes"], "bytes",
                             source, f"holds {chase_summary.size_text(level['min_bytes'])}, misses from "
                                     f"{chase_summary.size_text(level['max_bytes'])}",
                             bracket=(level["min_bytes"], level["max_bytes"]))
            if index_level is not None:
                source = span("PointerChase/cached", index_level["sizes"], "/stride:128")
                text = f"{index_level['latency']:.1f} cycles"
                if level is not None:
                    text += f", {index_level['latency'] - level['latency']:+.1f} for the index-to-address arithmetic"
                self.add(key + ".indexed_cycles", section, f"{name} latency, indexed chase", index_level["latency"],
                         "cycles", source, text)
        self.shared()
        self.by_sm()

    def shared(self):
        section = "Memory latency"
        for family, key, label in (("PointerChase/shared_direct", "memory.shared.cycles", "shared-memory load-to-use latency"),
                                   ("PointerChase/shared", "memory.shared.indexed_cycles", "shared-memory latency, indexed chase")):
            rows = rows_of(self.report, family, "cycles_per_load")
            if not rows:
                self.missing(key, section, label, "cycles")
                continue
            cycles = statistics.median(float(r["cycles_per_load"]) for r in rows)
            ns = statistics.median(float(r["ns_per_load"]) for r in rows)
            self.add(key, section, label, cycles, "cycles", span(family, [r["working_set_bytes"] for r in rows], "/stride:4"),
                     f"{cycles:.1f} cycles, {ns:.1f} ns")

    def by_sm(self):
        """The spread of a level's latency over the SMs the direct chase was pinned to."""
        section = "Memory latency"
        sets = {}
        for row in rows_of(self.report, "PointerChase/direct_sm", "cycles_per_load"):
            sets.setdefault(int(row["working_set_bytes"]), []).append(row)
        for size, rows in sorted(sets.items()):
            cycles = [float(r["cycles_per_load"]) for r in rows]
            low, high = min(cycles), max(cycles)
            sms = sorted(int(r["sm"]) for r in rows)
            self.add(f"memory.by_sm.{size}.spread", section, f"latency by SM at {chase_summary.size_text(size)}",
                     (high - low) / low, "of the fastest",
                     f"PointerChase/direct_sm/bytes:{size}/stride:128/sm:{sms[0]}..{sms[-1]} ({len(rows)} SMs)",
                     f"{low:.1f} .. {high:.1f} cycles over {len(rows)} SMs ({(high - low) / low:.1%})")

    def tlb_and_carveout(self):
        section = "TLB and carveout"
        levels = chase_summary.tlb_levels(self.report)
        if len(levels) >= 2:
            first = levels[0]
            source = span("PointerChase/tlb", first["sizes"] + levels[1]["sizes"], "/stride:2097152")
            self.add("tlb.reach_bytes", section, "TLB reach (2 MiB pages, L2-resident data)", first["min_bytes"],
                     "bytes", source, f"{chase_summary.size_text(first['min_bytes'])} .. "
                                      f"{chase_summary.size_text(first['max_bytes'])}, then "
                                      f"+{levels[1]['latency'] - first['latency']:.1f} cycles per load",
                     bracket=(first["min_bytes"], first["max_bytes"]))
        else:
            self.missing("tlb.reach_bytes", section, "TLB reach (2 MiB pages, L2-resident data)", "bytes")
        edges = chase_summary.carveout_edges(self.report)
        for percent in (0, 50, 100):
            label = f"L1 capacity with {percent}% preferred as shared"
            if percent not in edges or edges[percent][0]["max_bytes"] is None:
                self.missing(f"carveout.{percent}.l1_bytes", section, label, "bytes")
                continue
            first, _, rows = edges[percent]
            self.add(f"carveout.{percent}.l1_bytes", section, label, first["min_bytes"], "bytes",
                     span("PointerChase/carveout", [r["working_set_bytes"] for r in rows], f"/carveout:{percent}"),
                     f"holds {chase_summary.size_text(first['min_bytes'])}, misses from "
                     f"{chase_summary.size_text(first['max_bytes'])}", bracket=(first["min_bytes"], first["max_bytes"]))

    def compute(self):
        section = "Compute"
        for name, label in INSTRUCTIONS:
            latency = rows_of(self.report, f"InstructionLatency/{name}", "cycles_per_op")
            if latency:
                row = latency[0]
                self.add(f"compute.{name}.latency_cycles", section, f"{label} latency", float(row["cycles_per_op"]),
                         "cycles", short(row["name"]),
                         f"{float(row['cycles_per_op']):.2f} cycles, {float(row['ns_per_op']):.2f} ns")
            else:
                self.missing(f"compute.{name}.latency_cycles", section, f"{label} latency", "cycles")
            cells = rows_of(self.report, f"InstructionThroughput/{name}", "fraction_of_peak")
            if cells:
                best = max(cells, key=lambda r: float(r["fraction_of_peak"]))
                fraction = float(best["fraction_of_peak"])
                self.add(f"compute.{name}.fraction_of_peak", section, f"{label} throughput", fraction, "of peak",
                         short(best["name"]) + f" (best of {len(cells)} cells)",
                         f"{fraction:.1%} of peak, {float(best['tops']):.1f} T results/s")
            else:
                self.missing(f"compute.{name}.fraction_of_peak", section, f"{label} throughput", "of peak")

    def control_and_shared(self):
        section = "Control flow and shared memory"
        paths = {int(re.search(r"paths:(\d+)", r["name"]).group(1)): r
                 for r in rows_of(self.report, "Divergence/Paths", "slowdown")}
        for count in (2, 32):
            if count in paths:
                row = paths[count]
                self.add(f"divergence.slowdown_{count}", section, f"{count}-way divergent warp",
                         float(row["slowdown"]), "x", short(row["name"]),
                         f"{float(row['slowdown']):.2f}x the converged warp, "
                         f"{float(row['cycles_per_path']):.0f} cycles per path")
            else:
                self.missing(f"divergence.slowdown_{count}", section, f"{count}-way divergent warp", "x")
        # Conflict degree against cycles per warp load: 4-byte strides (degree gcd(stride, 32)), or the
        # power-of-two ways of runs from before the stride sweep.
        ways = sorted((float(r["predicted_degree"]), float(r["cycles_per_load"]))
                      for r in rows_of(self.report, "SharedBankConflict/Stride", "cycles_per_load")
                      if "/bytes:4/" in r["name"] and "predicted_degree" in r)
        if not ways:
            ways = sorted((int(re.search(r"ways:(\d+)", r["name"]).group(1)), float(r["cycles_per_load"]))
                          for r in rows_of(self.report, "SharedBankConflict/Ways", "cycles_per_load"))
        if len({w for w, _ in ways}) >= 2:
            # Least squares over the degrees: the cycles each extra conflicting word adds to a warp's load.
            mean_w = statistics.mean(w for w, _ in ways)
            mean_c = statistics.mean(c for _, c in ways)
            slope = sum((w - mean_w) * (c - mean_c) for w, c in ways) / sum((w - mean_w) ** 2 for w, _ in ways)
            self.add("shared.cycles_per_conflict_way", section, "shared-memory bank conflict", slope,
                     "cycles per way", f"SharedBankConflict 4-byte loads, degree {ways[0][0]:.0f}..{ways[-1][0]:.0f} "
                                       f"({len(ways)} rows)",
                     f"{slope:.2f} cycles per way (degree 1: {ways[0][1]:.2f}, {ways[-1][0]:.0f}: "
                     f"{ways[-1][1]:.2f} cycles per warp load)")
        else:
            self.missing("shared.cycles_per_conflict_way", section, "shared-memory bank conflict", "cycles per way")
        patterns = [r for r in rows_of(self.report, "SharedBankConflict", "wavefronts_per_load") if "predicted_wavefronts" in r]
        if patterns:
            agree = [r for r in patterns
                     if abs(float(r["wavefronts_per_load"]) - float(r["predicted_wavefronts"])) <= 0.01 * float(r["predicted_wavefronts"])]
            self.add("shared.model_agreement", section, "bank model against CUPTI wavefronts", len(agree) / len(patterns),
                     "of patterns", f"SharedBankConflict ({len(patterns)} rows)",
                     f"{len(agree)} of {len(patterns)} access patterns took the predicted wavefronts (within 1%)")
        tiles = {re.search(r"Transpose/(\w+)", r["name"]).group(1): float(r["cycles_per_load"])
                 for r in rows_of(self.report, "SharedBankConflict/Transpose", "cycles_per_load")}
        if tiles:
            self.add("shared.transpose_column_read", section, "tile column read (transpose)",
                     tiles.get("naive"), "cycles per warp load", "SharedBankConflict/Transpose",
                     ", ".join(f"{name} {cycles:.2f}" for name, cycles in sorted(tiles.items())) + " cycles per warp load")

    def bandwidth(self):
        section = "Bandwidth"
        peak = float(self.context.get("gpu_dram_bandwidth_theoretical_gbs", 0) or 0) * 1e9
        rates = {}
        for op, label in (("read", "stream read (DRAM)"), ("write", "stream write (DRAM)"), ("copy", "stream copy (DRAM)"),
                          ("scale", "stream scale (DRAM)"), ("triad", "stream triad (DRAM)"),
                          ("copy_bulk", "stream copy by the TMA, cp.async.bulk (DRAM)"),
                          ("memcpy", "cudaMemcpyAsync device to device (DRAM)")):
            row = chase_summary.stream_row(self.report, op)
            key = f"bandwidth.stream_{op}"
            if not row:
                if op in ("read", "copy"):
                    self.missing(key + ".fraction", section, label, "of theoretical")
                continue
            rate = rates[op] = float(row["bytes_per_second"])
            text = f"{rate / 1e12:.2f} TB/s read + written"
            if peak > 0:
                text += f", {rate / peak:.1%} of the theoretical {peak / 1e12:.2f} TB/s"
                self.add(key + ".fraction", section, label, rate / peak, "of theoretical", short(row["name"]), text)
            self.add(key + ".bytes_per_second", section, label + " rate", rate, "B/s", short(row["name"]))
        if "copy" in rates and "memcpy" in rates:
            self.add("bandwidth.copy_vs_memcpy", section, "stream copy against cudaMemcpy", rates["copy"] / rates["memcpy"],
                     "of cudaMemcpy", "Stream/copy, Stream/memcpy",
                     f"the copy kernel moves {rates['copy'] / rates['memcpy']:.1%} of cudaMemcpyAsync's bytes per second")
        if "copy_bulk" in rates and "memcpy" in rates:
            self.add("bandwidth.copy_bulk_vs_memcpy", section, "TMA bulk copy against cudaMemcpy",
                     rates["copy_bulk"] / rates["memcpy"], "of cudaMemcpy", "Stream/copy_bulk, Stream/memcpy",
                     f"the TMA copy moves {rates['copy_bulk'] / rates['memcpy']:.1%} of cudaMemcpyAsync's bytes per "
                     "second (the copy engines')")
        for op in ("read", "copy"):  # how much a fixed split of the work loses to the SMs' unequal rates
            by_schedule = {}
            for row in chase_summary.dram_sized(latency_levels.family_rows(self.report, f"Stream/{op}", "bytes_per_second")):
                tile = re.search(r"/claim_KiB:(\d+)", row["name"])
                claimed = bool(tile and int(tile.group(1)) > 0)
                by_schedule[claimed] = max(by_schedule.get(claimed, 0.0), float(row["bytes_per_second"]))
            if len(by_schedule) == 2:
                gain = by_schedule[True] / by_schedule[False]
                self.add(f"bandwidth.stream_{op}.claimed_vs_grid_stride", section,
                         f"stream {op}: claimed tiles against grid-stride", gain, "x", f"Stream/{op} (claim_KiB 0 and > 0)",
                         f"best claimed {by_schedule[True] / 1e12:.2f} against best grid-stride "
                         f"{by_schedule[False] / 1e12:.2f} TB/s ({gain - 1:+.1%})")
        levels = chase_summary.bandwidth_levels(self.report)
        for level in levels:
            key = "bandwidth." + level["name"].lower()
            source = f"CacheBandwidth ({len(level['rows'])} rows)"
            self.add(key + ".bytes_per_second", section, f"{level['name']} read bandwidth", level["bytes_per_second"],
                     "B/s", source)
            self.add(key + ".bytes_per_clock_per_sm", section, f"{level['name']} read bandwidth",
                     level["bytes_per_clock_per_sm"], "B/clk/SM", source,
                     f"{level['bytes_per_second'] / 1e12:.2f} TB/s, {level['bytes_per_clock_per_sm']:.1f} bytes per "
                     "clock per SM")
        if not levels:
            self.missing("bandwidth.levels", section, "L1 / L2 / DRAM read bandwidth by working set", "B/s")

    def parallelism(self):
        """How many loads in flight reach how much bandwidth, on the GPU and on its host."""
        section = "Memory-level parallelism"
        _, best = chase_summary.parallelism_summary(self.report)
        stream, label = chase_summary.stream_reference(self.report)
        if best and stream:
            self.add("mlp.gpu.fraction_of_stream", section, f"GPU chases against the {label}",
                     best["bytes_per_second"] / stream, "of the stream", short(best["run_name"]),
                     f"{best['bytes_per_second'] / 1e12:.2f} TB/s with {best['loads_in_flight']:.0f} lines in flight, "
                     f"{best['bytes_per_second'] / stream:.1%} of the DRAM-sized {label}")
        else:
            self.missing("mlp.gpu.fraction_of_stream", section, "GPU chases against the read-only stream", "of the stream")
        self.juggler(section)
        host, read = chase_summary.host_parallelism(self.report)
        if host and read:
            self.add("mlp.host.fraction_of_read", section, "host chases against the host's read",
                     host["bytes_per_second"] / read, "of the read", short(host["run_name"]),
                     f"{host['bytes_per_second'] / 1e9:.2f} GB/s with {host['loads_in_flight']:.0f} lines in flight, "
                     f"{host['bytes_per_second'] / read:.1%} of {read / 1e9:.1f} GB/s")
        else:
            self.missing("mlp.host.fraction_of_read", section, "host chases against the host's read", "of the read")

    def juggler(self, section):
        """LoadILP: one warp's bandwidth with 1 and 16 loads in flight per thread, and the latency Little's law
        implies at one load beside the chase's DRAM load-to-use latency."""
        scalar = {chase_summary.run_args(r["run_name"])["loads"]: r
                  for r in chase_summary.parallelism_rows(self.report, "LoadILP/scalar")
                  if chase_summary.run_args(r["run_name"]).get("warps") == 1}
        if 1 not in scalar or len(scalar) < 2:
            self.missing("mlp.juggler.speedup", section, "one warp's loads in flight (LoadILP)", "x")
            return
        most = max(scalar)
        speedup = scalar[most]["bytes_per_second"] / scalar[1]["bytes_per_second"]
        dram = {l["name"]: l for l in chase_summary.level_table(self.report, "PointerChase/direct", 128)}.get("DRAM")
        text = (f"one warp: {scalar[1]['bytes_per_second'] / 1e9:.2f} GB/s with 1 load in flight per thread, "
                f"{scalar[most]['bytes_per_second'] / 1e9:.2f} GB/s with {most} ({speedup:.1f}x)")
        self.add("mlp.juggler.speedup", section, f"one warp, {most} loads in flight against 1 (LoadILP)", speedup, "x",
                 f"LoadILP/scalar/loads:1..{most}/warps:1 ({len(scalar)} rows)", text)
        latency = scalar[1]["littles_law_ns"]
        text = f"{latency:.0f} ns per load by Little's law at 1 load in flight"
        if dram:
            text += f"; the dependent chase's DRAM load-to-use latency: {dram['ns']:.0f} ns"
        self.add("mlp.juggler.littles_law_ns", section, "streaming load latency (Little's law)", latency, "ns",
                 "LoadILP/scalar/loads:1/warps:1", text)

    def interconnect(self):
        """Peer: copies to and from another GPU against its NVLink links, and load-to-use latency in its memory
        against local memory (the largest set of each)."""
        section = "Interconnect"
        copies = chase_summary.parallelism_rows(self.report, "Peer/copy")
        for direction, label in ((0, "copy to the peer GPU"), (1, "copy from the peer GPU"), (2, "copy both ways at once")):
            rows = [r for r in copies if chase_summary.run_args(r["run_name"]).get("direction") == direction]
            key = f"peer.copy_{('to', 'from', 'both')[direction]}"
            if not rows:
                self.missing(key, section, label, "B/s")
                continue
            best = max(rows, key=lambda r: r["bytes_per_second"])
            text = f"{best['bytes_per_second'] / 1e9:.1f} GB/s"
            if best.get("fraction_of_link"):
                text += (f", {best['fraction_of_link']:.1%} of {best.get('nvlink_links', 0):.0f} NVLink links' "
                         f"{'two directions' if direction == 2 else 'one direction'}")
            self.add(key, section, label, best["bytes_per_second"], "B/s",
                     short(best["run_name"]), text)
        for family, label in (("Peer/read", "kernel reading peer memory"), ("Peer/write", "kernel writing peer memory")):
            rows = chase_summary.parallelism_rows(self.report, family)
            if rows:
                best = max(rows, key=lambda r: r["bytes_per_second"])
                self.add("peer." + family.split("/")[1], section, label, best["bytes_per_second"],
                         "B/s", short(best["run_name"]), f"{best['bytes_per_second'] / 1e9:.1f} GB/s")
        chases = rows_of(self.report, "Peer/chase", "ns_per_load")
        if chases:
            largest = max(float(r["working_set_bytes"]) for r in chases)
            under_test = float(self.context.get("gpu_index", 0) or 0)
            at = {("peer" if float(r["memory_on_gpu"]) != under_test else "local"):
                  {k: float(r[k]) for k in ("ns_per_load", "cycles_per_load")} | {"run_name": r["run_name"]}
                  for r in chases if float(r["working_set_bytes"]) == largest}
            if "peer" in at:
                text = f"{at['peer']['ns_per_load']:.0f} ns ({at['peer']['cycles_per_load']:.0f} cycles) per load"
                if "local" in at:
                    text += f"; local memory {at['local']['ns_per_load']:.0f} ns in the same run"
                self.add("peer.chase.latency_ns", section, f"load-to-use latency in peer memory ({chase_summary.size_text(largest)})",
                         at["peer"]["ns_per_load"], "ns", short(at["peer"]["run_name"]), text)
        else:
            self.missing("peer.chase.latency_ns", section, "load-to-use latency in peer memory", "ns")

    def normalize(self):
        """The homework's kernels at d_l 8, g 8: instructions per element and their best time."""
        section = "A kernel under the microscope: Normalize"
        variants = [("Normalize/base/dl:8/", "base (a thread per vector)", "base"),
                    ("Normalize/grouped/dl:8/g:8/u:1/", "grouped, g 8", "u1"),
                    ("Normalize/grouped/dl:8/g:8/u:2/", "grouped, g 8, unrolled 2", "u2"),
                    ("Normalize/grouped/dl:8/g:8/u:4/", "grouped, g 8, unrolled 4", "u4")]
        for prefix, label, key in variants:
            rows = [r for r in self.report.get("benchmarks", []) if r.get("run_type") != "aggregate"
                    and not r.get("error_occurred") and r["name"].startswith(prefix) and "insn_per_element" in r]
            if not rows:
                self.missing(f"normalize.{key}.insn_per_element", section, label, "instructions per element")
                continue
            fastest = min(rows, key=lambda r: float(r["real_time"]))
            self.add(f"normalize.{key}.insn_per_element", section, label, float(fastest["insn_per_element"]),
                     "instructions per element", short(fastest["name"]),
                     f"{float(fastest['insn_per_element']):.1f} instructions per element; fastest at "
                     f"{int(fastest['warps_per_block'])} warps per block, {float(fastest['real_time']) / 1e3:.1f} us")

    def build(self):
        self.memory()
        self.tlb_and_carveout()
        self.compute()
        self.control_and_shared()
        self.bandwidth()
        self.parallelism()
        self.interconnect()
        self.normalize()
        return self

    # --- output -----------------------------------------------------------------------------------
    def device(self):
        c = self.context
        flagged = sum(1 for r in self.report.get("benchmarks", []) if r.get("clock_flagged"))
        return {
            "name": c.get("gpu_name", NOT_MEASURED),
            "compute_capability": c.get("gpu_compute_capability"),
            "sm_count": c.get("gpu_sm_count"),
            "sm_clock_mhz_measured": c.get("gpu_sm_clock_mhz_measured"),
            "sm_clock_mhz_max": c.get("gpu_sm_clock_mhz_max"),
            "l2_bytes": c.get("gpu_l2_bytes"),
            "dram_bandwidth_theoretical_gbs": c.get("gpu_dram_bandwidth_theoretical_gbs"),
            "driver": c.get("cuda_driver_version"),
            "runtime": c.get("cuda_runtime_version"),
            "preset": c.get("gpubench_preset", "unknown"),
            "cold_l2": c.get("gpubench_cold_l2"),
            "other_gpu_processes": c.get("gpubench_other_gpu_processes", "unknown"),
            "rows": sum(1 for r in self.report.get("benchmarks", []) if r.get("run_type") == "iteration"),
            "rows_clock_flagged": flagged,
            "date": c.get("date"),
        }

    def to_json(self):
        return {"device": self.device(), "values": self.values}

    def to_markdown(self, plots_note=""):
        d = self.device()
        lines = [f"# Micro-architecture card: {d['name']}", ""]
        lines.append(f"sm_{str(d['compute_capability']).replace('.', '')}, {d['sm_count']} SMs, SM clock measured "
                     f"{d['sm_clock_mhz_measured']} MHz (rated {d['sm_clock_mhz_max']}), L2 "
                     f"{chase_summary.size_text(float(d['l2_bytes'] or 0))}, driver {d['driver']}, runtime "
                     f"{d['runtime']}; preset {d['preset']}, {d['rows']} rows, {d['date']}.")
        warnings = []
        if d["other_gpu_processes"] not in ("none", "unknown"):
            warnings.append(f"other processes used the GPU when the run started: {d['other_gpu_processes']}")
        if d["rows_clock_flagged"]:
            warnings.append(f"{d['rows_clock_flagged']} row(s) ran with the SM clock under 97% of rated or drifting "
                            "over 1% (see their labels)")
        for warning in warnings:
            lines += ["", f"**Warning:** {warning}."]
        for section in SECTIONS:
            # ns and rates are in their sibling's text; the JSON keeps them as values of their own.
            entries = [v for v in self.values if v["section"] == section
                       and not v["key"].endswith((".ns", ".bytes_per_second"))]
            if not entries:
                continue
            lines += ["", f"## {section}", "", "| quantity | value | from |", "|---|---|---|"]
            for v in entries:
                if v["value"] is None:
                    lines.append(f"| {v['label']} | {NOT_MEASURED} | - |")
                else:
                    text = v["text"] or f"{v['value']:.4g} {v['unit']}"
                    lines.append(f"| {v['label']} | {text} | `{v['source']}` |")
        if plots_note:
            lines += ["", plots_note]
        return "\n".join(lines) + "\n"


def write_plots(report, prefix):
    """Figures next to the card; the note says what was written, or how to get them."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("Plots: not drawn, matplotlib is not installed for this python3 (Debian: `apt-get install "
                "python3-matplotlib`; or `python3 -m pip install matplotlib`), then run "
                f"`python3 {os.path.abspath(__file__)} RUN.json --out {prefix} --plots`.")
    import plot_latency
    device = report.get("context", {}).get("gpu_name", "GPU")
    wrote = []
    for make, suffix in ((plot_latency.latency_figure, "-latency.png"),
                         (plot_latency.carveout_figure, "-carveout.png"),
                         (plot_latency.parallelism_figure, "-parallelism.png"),
                         (plot_latency.mlp_figure, "-mlp.png"),
                         (plot_latency.bandwidth_figure, "-bandwidth.png")):
        if make(plt, report, device, prefix + suffix):
            wrote.append(os.path.basename(prefix + suffix))
        plt.close("all")
    return "Plots: " + ", ".join(wrote) + "." if wrote else ""


def compare(paths, tolerance):
    cards = []
    for path in paths:
        with open(path) as f:
            cards.append({v["key"]: v for v in json.load(f)["values"] if v["value"] is not None})
    shared = [key for key in cards[0] if key in cards[1]]
    print(f"| value | {os.path.basename(paths[0])} | {os.path.basename(paths[1])} | difference |")
    print("|---|---:|---:|---:|")
    worst = 0.0
    disagreeing = []
    for key in shared:
        a, b = cards[0][key], cards[1][key]
        if "bracket" in a and "bracket" in b:
            # Capacities: each run resolves the edge to its own grid; they agree when the brackets meet.
            (a_low, a_high), (b_low, b_high) = a["bracket"], b["bracket"]
            meet = a_low <= b_high and b_low <= a_high
            if not meet:
                disagreeing.append(key)
            print(f"| {key} | {a_low:.5g} .. {a_high:.5g} | {b_low:.5g} .. {b_high:.5g} | "
                  f"{'edges meet' if meet else '**edges apart**'} |")
            continue
        diff = abs(a["value"] - b["value"]) / max(abs(a["value"]), abs(b["value"])) if max(
            abs(a["value"]), abs(b["value"])) > 0 else 0.0
        worst = max(worst, diff)
        if diff > tolerance:
            disagreeing.append(key)
        print(f"| {key} | {a['value']:.5g} | {b['value']:.5g} | {diff:.2%}{' **over tolerance**' if diff > tolerance else ''} |")
    print(f"\n{len(shared)} shared values; largest difference of a latency, rate or fraction {worst:.2%} "
          f"(tolerance {tolerance:.0%}); values that disagree: {', '.join(disagreeing) if disagreeing else 'none'}.")
    only = [k for k in cards[0] if k not in cards[1]] + [k for k in cards[1] if k not in cards[0]]
    if only:
        print("In one card only: " + ", ".join(only))
    return 0 if not disagreeing else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="gpubench --benchmark_out JSON (or two cards with --compare)")
    parser.add_argument("--out", help="prefix of the card files (default: the first JSON + .card)")
    parser.add_argument("--plots", action="store_true", help="draw figures next to the card (needs matplotlib)")
    parser.add_argument("--compare", action="store_true", help="compare two .card.json files")
    parser.add_argument("--tolerance", type=float, default=0.02)
    args = parser.parse_args()
    if args.compare:
        if len(args.json) != 2:
            parser.error("--compare takes two .card.json files")
        return compare(args.json, args.tolerance)
    reports = []
    for path in args.json:
        with open(path) as f:
            reports.append(json.load(f))
    devices = {r.get("context", {}).get("gpu_name") for r in reports} - {None}
    if len(devices) > 1:
        print("card.py: the inputs come from different GPUs (" + ", ".join(sorted(devices)) + "); a card is one chip's",
              file=sys.stderr)
        return 2
    report = chase_summary.merge(reports)
    prefix = args.out or args.json[0] + ".card"
    parts = chase_summary.devices_of(report)
    if len(parts) == 1:
        write_card(parts[0][1], prefix, args.plots)
    else:
        write_host_card(parts, prefix, args.plots)
    print(f"wrote {prefix}.md and {prefix}.json", file=sys.stderr)
    return 0


def write_card(report, prefix, plots):
    card = Card(report).build()
    note = write_plots(report, prefix) if plots else ""
    with open(prefix + ".json", "w") as f:
        json.dump(card.to_json(), f, indent=1)
    markdown = card.to_markdown(note)
    with open(prefix + ".md", "w") as f:
        f.write(markdown)
    return card, markdown


def write_host_card(parts, prefix, plots):
    """A run over several GPUs: each GPU's card as PREFIX-gpuN.md/.json (and figures), and PREFIX.md/.json
    holding them all, the JSON's keys as gpu:N/key so that --compare pairs the same GPU's values."""
    cards, texts, values = [], [], []
    for gpu, report in parts:
        card, markdown = write_card(report, f"{prefix}-gpu{gpu}", plots)
        cards.append({"gpu": gpu, "card": os.path.basename(f"{prefix}-gpu{gpu}.json")} | card.to_json())
        texts.append(markdown.replace("# Micro-architecture card: ", f"# GPU {gpu}: ", 1))
        values += [v | {"key": f"gpu:{gpu}/{v['key']}", "gpu": gpu} for v in card.values]
    names = ", ".join(f"GPU {c['gpu']} {c['device']['name']}" for c in cards)
    head = f"# Micro-architecture cards of one run over {len(cards)} GPUs\n\n{names}; one card per GPU below " \
           f"(also `{os.path.basename(prefix)}-gpuN.md`).\n\n"
    with open(prefix + ".md", "w") as f:
        f.write(head + "\n".join(texts))
    with open(prefix + ".json", "w") as f:
        json.dump({"devices": cards, "values": values}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
