#!/usr/bin/env python3
"""chase_summary.py on a synthetic gpubench report (no GPU): levels, spread, carveout edges, the
parallelism table and its ratio to stream bandwidth."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from analysis import chase_summary  # noqa: E402
from analysis.cards.families import cache_bandwidth, memory_parallelism, memory_parallelism_cpu  # noqa: E402
from analysis.cards.families import pointer_chase, stream  # noqa: E402
from analysis.model.report import from_dict  # noqa: E402

KIB = 1024
MIB = 1024 * KIB


def chase_row(family, size, cycles, stride=128, repetition=0, **extra):
    suffix = f"/carveout:{extra['carveout_percent']}" if "carveout_percent" in extra else ""
    row = {"run_name": f"{family}/bytes:{size}/stride:{stride}{suffix}/manual_time", "run_type": "iteration",
           "repetition_index": repetition, "working_set_bytes": size, "stride_bytes": stride,
           "cycles_per_load": cycles, "ns_per_load": cycles / 2.0}
    row.update(extra)
    return row


def synthetic_report():
    rows = []
    sizes = [4 * KIB * 2 ** i for i in range(19)]  # 4 KiB .. 1 GiB
    for repetition, wiggle in ((0, 1.0), (1, 1.01)):
        for size in sizes:
            cycles = 30.0 if size <= 128 * KIB else 260.0 if size <= 32 * MIB else 600.0
            rows.append(chase_row("PointerChase/cached", size, cycles * wiggle, repetition=repetition))
    for percent, l1 in ((0, 256 * KIB), (100, 32 * KIB)):
        for size in range(8 * KIB, 320 * KIB + 1, 8 * KIB):
            rows.append(chase_row("PointerChase/carveout", size, 30.0 if size <= l1 else 260.0,
                                  carveout_percent=percent))
    for chains in (1, 16):
        for warps in (1, 64):
            bandwidth = 1e11 * chains * warps / 64
            rows.append({"run_name": f"MemoryParallelism/gpu/chains:{chains}/warps_per_sm:{warps}/manual_time",
                         "run_type": "iteration", "bytes_per_second": bandwidth, "chains_per_warp": chains,
                         "loads_in_flight": chains * warps * 132, "bytes_in_flight": chains * warps * 132 * 128,
                         "implied_latency_ns": 700.0, "ns_per_step": 650.0})
    rows.append({"run_name": "StreamCopy/Copy/MiB:1024/manual_time", "run_type": "iteration",
                 "bytes_per_second": 2e12})
    rows.append({"run_name": "StreamCopy/Copy/MiB:1024/manual_time", "run_type": "aggregate",
                 "bytes_per_second": 9e12})
    return {"context": {"gpu_name": "Synthetic GPU"}, "benchmarks": rows}


class ChaseSummary(unittest.TestCase):
    def setUp(self):
        self.report = synthetic_report()

    def test_levels_carry_ns_and_spread(self):
        levels = pointer_chase.level_table(from_dict(self.report), "PointerChase/cached", 128)
        self.assertEqual([l["name"] for l in levels], ["L1", "L2", "DRAM"])
        self.assertAlmostEqual(levels[0]["ns"], 15.0 * 1.005)
        self.assertEqual(levels[1]["repetitions"], 2)
        self.assertAlmostEqual(levels[1]["spread"], 0.01 / 1.005, places=6)
        self.assertEqual(levels[0]["min_bytes"], 128 * KIB)

    def test_parallelism_best_against_stream(self):
        _, best = memory_parallelism.whole_gpu(from_dict(self.report))
        rate, _ = stream.reference(from_dict(self.report))
        self.assertEqual(rate, 2e12)  # aggregates are not runs
        self.assertEqual(best["bytes_per_second"], 1.6e12)

    def test_the_read_only_stream_is_the_reference_once_it_exists(self):
        rows = list(self.report["benchmarks"])
        for size, rate in ((8 * MIB, 9e12), (2048 * MIB, 3.1e12), (2048 * MIB, 2.9e12), (4096 * MIB, 3.0e12)):
            rows.append({"run_name": f"Stream/read/bytes_per_thread:16/blocks_per_sm:8/MiB:{size // MIB}/cold_l2:1/"
                                     "manual_time", "run_type": "iteration", "bytes_per_second": rate,
                         "working_set_bytes": size})
        report = {"context": {}, "benchmarks": rows}
        self.assertEqual(stream.reference(from_dict(report)), (3.1e12, "read-only stream"))  # best DRAM-sized row
        self.assertEqual(stream.reference(from_dict(self.report)), (2e12, "stream copy"))  # older runs: the copy
        self.assertAlmostEqual(stream.reference(from_dict(report))[0], 3.1e12)

    def test_bandwidth_levels_are_placed_by_the_l2_size(self):
        l2 = 50 * MIB
        rows = []
        for family, kib, rate in (("read", 16, 30e12), ("read", 64, 32e12), ("read", 256, 8e12), ("read", 2048, 3e12),
                                  ("read_cg", 16, 9e12), ("read_cg", 128, 10e12), ("read_cg", 2048, 3.2e12)):
            rows.append({"run_name": f"CacheBandwidth/{family}/KiB_per_sm:{kib}/manual_time", "run_type": "iteration",
                         "bytes_per_second": rate, "bytes_per_clock_per_sm": rate / 132 / 2e9,
                         "working_set_bytes": kib * KIB * 132})
        levels = cache_bandwidth.plateaus(from_dict({"context": {"gpu_l2_bytes": str(l2)}, "benchmarks": rows}))
        self.assertEqual([(l["name"], l["bytes_per_second"]) for l in levels],
                         [("L1", 31e12), ("L2", 9.5e12), ("DRAM", 3.1e12)])
        self.assertAlmostEqual(levels[0]["bytes_per_clock_per_sm"], 31e12 / 132 / 2e9)
        self.assertEqual(cache_bandwidth.plateaus(from_dict({"context": {}, "benchmarks": rows})), [])  # L2 size unknown

    def test_host_parallelism_against_the_host_read(self):
        rows = [{"run_name": f"MemoryParallelismCPU/chase/chains:{c}/threads:{t}/manual_time", "run_type": "iteration",
                 "bytes_per_second": 1e9 * c * t, "loads_in_flight": c * t, "ns_per_load_per_chain": 100.0,
                 "implied_latency_ns": 100.0} for c in (1, 16) for t in (1, 4)]
        rows.append({"run_name": "MemoryParallelismCPU/read/threads:4/manual_time", "run_type": "iteration",
                     "bytes_per_second": 128e9})
        best, read = memory_parallelism_cpu.best(from_dict({"benchmarks": rows}))
        self.assertEqual(best["bytes_per_second"], 64e9)
        self.assertEqual(read, 128e9)

    def test_markdown_output(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(self.report, f)
        out = io.StringIO()
        argv = sys.argv
        try:
            sys.argv = ["chase_summary.py", f.name]
            with contextlib.redirect_stdout(out):
                self.assertEqual(chase_summary.main(), 0)
        finally:
            sys.argv = argv
            os.unlink(f.name)
        text = out.getvalue()
        self.assertIn("| L1 | 30.1 | 15.1 | 128 KiB .. 256 KiB | 6 | 1.00% (2 reps) |", text)
        self.assertIn("| 0 | 30.0 | 256 KiB | 264 KiB | 260.0 |", text)
        self.assertIn("| 100 | 30.0 | 32 KiB | 40 KiB | 260.0 |", text)
        self.assertIn("reaches **80.0%**", text)
        self.assertIn("| 16 | 0.03 | 1.60 |", text)


class TlbReach(unittest.TestCase):
    """The page-stride chase as an H200's full preset reads it (x4j, docs/results/2026-11-28-full-node-pair): 290
    cycles to 384 MiB, a ramp to 298 by 4 GiB, flat to 64 GiB, 329 at 96 GiB. The one-step fit over every size once
    read 384 MiB on one GPU and 48 GiB on its peers (a node outlier, measured again, on a healthy board)."""
    GIB = 1024 * MIB
    H200 = [(32 * MIB, 290.0), (64 * MIB, 289.0), (256 * MIB, 289.5), (384 * MIB, 290.5), (512 * MIB, 293.5),
            (768 * MIB, 295.5), (GIB, 296.0), (2 * GIB, 297.0), (4 * GIB, 297.5), (8 * GIB, 297.6),
            (16 * GIB, 297.8), (32 * GIB, 297.8), (48 * GIB, 298.0), (64 * GIB, 298.5), (96 * GIB, 329.5)]

    def values(self, points):
        rows = [chase_row("PointerChase/tlb", size, cycles, stride=2 * MIB) for size, cycles in points]
        found = {v["key"]: v for v in pointer_chase.tlb_and_carveout(from_dict({"context": {}, "benchmarks": rows}))}
        return found["tlb.reach_bytes"], found.get("tlb.last_reach_bytes")

    def test_the_nearest_tlb_is_read_below_4_gib_whatever_the_preset_adds(self):
        near, last = self.values(self.H200)
        self.assertEqual(near["bracket"], [384 * MIB, 512 * MIB])
        self.assertEqual(last["bracket"], [64 * self.GIB, 96 * self.GIB])
        check_preset = [p for p in self.H200 if p[0] in (32 * MIB, 64 * MIB, 256 * MIB, 384 * MIB, 512 * MIB,
                                                          768 * MIB, self.GIB, 2 * self.GIB, 4 * self.GIB)]
        self.assertEqual(self.values(check_preset)[0]["bracket"], near["bracket"])

    def test_no_last_level_where_the_gpus_memory_ends_before_it(self):
        near, last = self.values([p for p in self.H200 if p[0] <= 48 * self.GIB])  # an H100's 80 GB
        self.assertEqual(near["bracket"], [384 * MIB, 512 * MIB])
        self.assertIsNone(last)


if __name__ == "__main__":
    unittest.main()
