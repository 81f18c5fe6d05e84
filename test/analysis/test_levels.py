#!/usr/bin/env python3
"""Unit tests of the staircase rule on synthetic curves (no GPU)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from analysis.model import levels as latency_levels  # noqa: E402
from analysis.model.report import from_dict  # noqa: E402

KIB = 1024
MIB = 1024 * KIB


def staircase(levels, sizes, noise=0.0):
    """levels: [(capacity_bytes or None, latency)] ascending; latency of the first level that holds size."""
    points = []
    for i, size in enumerate(sizes):
        for capacity, latency in levels:
            if capacity is None or size <= capacity:
                wiggle = 1 + noise * (1 if i % 2 else -1)
                points.append((float(size), latency * wiggle))
                break
    return points


SIZES = [4 * KIB * 2 ** (i / 2) for i in range(0, 36)]  # 4 KiB .. ~1 GiB in sqrt(2) steps


class FindLevels(unittest.TestCase):
    def test_three_levels_with_capacity_bounds(self):
        points = staircase([(256 * KIB, 33.0), (50 * MIB, 260.0), (None, 700.0)], SIZES)
        levels = latency_levels.find_levels(points)
        self.assertEqual([l["name"] for l in levels], ["L1", "L2", "DRAM"])
        self.assertAlmostEqual(levels[0]["latency"], 33.0)
        self.assertLessEqual(levels[0]["min_bytes"], 256 * KIB)
        self.assertGreater(levels[0]["max_bytes"], 256 * KIB)
        self.assertLessEqual(levels[1]["min_bytes"], 50 * MIB)
        self.assertGreater(levels[1]["max_bytes"], 50 * MIB)
        self.assertIsNone(levels[2]["max_bytes"])

    def test_noise_within_tolerance_does_not_split_a_plateau(self):
        points = staircase([(256 * KIB, 33.0), (50 * MIB, 260.0), (None, 700.0)], SIZES, noise=0.05)
        self.assertEqual(len(latency_levels.find_levels(points)), 3)

    def test_far_l2_plateau_is_its_own_level(self):
        points = staircase([(256 * KIB, 33.0), (25 * MIB, 230.0), (50 * MIB, 320.0), (None, 700.0)], SIZES)
        names = [l["name"] for l in latency_levels.find_levels(points)]
        self.assertEqual(names, ["L1", "L2", "L2 (far)", "DRAM"])

    def test_a_sweep_cut_short_inside_l2_names_no_dram(self):
        """A run stopped at 48 MiB (interrupted, or filtered) on a 50 MiB L2: its last plateau is the far L2."""
        curve = [(256 * KIB, 33.0), (25 * MIB, 230.0), (50 * MIB, 530.0), (None, 700.0)]
        cut = [size for size in SIZES if size <= 48 * MIB]
        names = [l["name"] for l in latency_levels.find_levels(staircase(curve, cut), largest_cache=50 * MIB)]
        self.assertEqual(names, ["L1", "L2", "L2 (far)"])
        whole = latency_levels.find_levels(staircase(curve, SIZES), largest_cache=50 * MIB)
        self.assertEqual([l["name"] for l in whole], ["L1", "L2", "L2 (far)", "DRAM"])

    def test_single_point_transitions_are_not_levels(self):
        points = [(1.0, 10.0), (2.0, 10.0), (3.0, 55.0), (4.0, 100.0), (5.0, 100.0)]
        levels = latency_levels.find_levels(points)
        self.assertEqual([l["latency"] for l in levels], [10.0, 100.0])

    def test_json_rows_are_averaged_per_size_and_aggregates_ignored(self):
        report = {"benchmarks": [
            {"run_name": "PointerChase/cached/bytes:4096/stride:128/manual_time", "run_type": "iteration",
             "working_set_bytes": 4096, "cycles_per_load": 30.0},
            {"run_name": "PointerChase/cached/bytes:4096/stride:128/manual_time", "run_type": "iteration",
             "working_set_bytes": 4096, "cycles_per_load": 34.0},
            {"run_name": "PointerChase/cached/bytes:4096/stride:128/manual_time", "run_type": "aggregate",
             "working_set_bytes": 4096, "cycles_per_load": 999.0},
            {"run_name": "PointerChase/l2_only/bytes:4096/stride:128/manual_time", "run_type": "iteration",
             "working_set_bytes": 4096, "cycles_per_load": 200.0},
        ]}
        self.assertEqual(latency_levels.points(from_dict(report), "PointerChase/cached"), [(4096.0, 32.0)])


if __name__ == "__main__":
    unittest.main()
