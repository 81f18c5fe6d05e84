#!/usr/bin/env python3
"""The verdict's layers on committed runs and synthetic ones (no GPU): the one table of verdicts and exit statuses;
the architecture's limits judging a GPU whose SKU has none; the node layer naming the one slow GPU of a node and
leaving ratios and capacities' grids alone; links judged against the architecture and the node's other links, a
GPU named when every link of it is slow; busy from the run's context."""
import json
import os
import subprocess
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, ROOT)
from analysis.verdict import links  # noqa: E402
from analysis.running import measure_again  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict import judge, layers, wording  # noqa: E402
from analysis.verdict import table as verdicts  # noqa: E402
from analysis.model import report as report_model  # noqa: E402
sys.path.insert(0, HERE)
import leave_out  # noqa: E402

RUNS = os.path.join(ROOT, "docs", "results", "2026-11-26-verdicts", "raw.tar.xz", "runs")
NO_LIMITS = {"version": 3, "architectures": {}, "skus": {}}


def part_of(name, gpu=None):
    parts = dict(report_model.load(os.path.join(RUNS, name + ".json")).devices())
    return parts[gpu]


def built(part, limits):
    return judge.build(part, limits)


def scaled(part, prefix, factor, quantities=("bytes_per_second", "fraction_of_peak", "bytes_per_clock_per_sm")):
    rows = []
    for old in part.all_rows:
        row = report_model.Row(dict(old))
        row.__dict__.update(old.__dict__)
        if row.registered.startswith(prefix):
            for q in quantities:
                if isinstance(row.get(q), (int, float)):
                    row[q] *= factor
        rows.append(row)
    return report_model.Report(dict(part.context), rows, part.counter_table, part.gpu, part.sources)


class TheTable(unittest.TestCase):
    def test_one_table_of_verdicts_with_distinct_exits_and_every_tool_says_them(self):
        names = [v["name"] for v in verdicts.TABLE["verdicts"]]
        exits = [v["exit"] for v in verdicts.TABLE["verdicts"]]
        own = [v["exit"] for v in verdicts.TABLE["gpubench"]]
        self.assertEqual(len(exits), len(set(exits)))
        self.assertEqual(set(exits) & set(own), {0})  # gpubench's 0 (all ran) is the verdict normal's too
        self.assertEqual(names[:2], ["missing", "wrong"])  # most severe first: a lost GPU, then a wrong answer
        self.assertEqual(verdicts.worst([verdicts.NORMAL, verdicts.BUSY, verdicts.ABNORMAL]), verdicts.BUSY)
        self.assertEqual({v["action"] for v in verdicts.TABLE["verdicts"]}, {"keep", "drain"})
        done = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "card.py"), "--help"],
                              capture_output=True, text=True)
        for v in verdicts.TABLE["verdicts"]:
            self.assertIn(f"{v['exit']} {v['name'].replace('_', ' ')}", done.stdout)


class Architecture(unittest.TestCase):
    """An H200 judged with no H200 limits at all: the sm_90 table (its own values and fractions of its own peaks)
    still judges it."""

    def table_without_h200(self):
        """No H200 SKU limits, and the architecture's made without this board's runs (leave_out.py)."""
        return leave_out.limits_without({part_of("x2a-alone-0").context["gpu_uuid"]})

    def test_a_healthy_h200_is_normal_by_its_architecture_alone(self):
        table = self.table_without_h200()
        made = built(part_of("x2a-alone-0"), table)
        status, line = judge.give(made)
        self.assertEqual(status, verdicts.NORMAL, line)
        self.assertIn("sm_90", line)
        self.assertEqual({c["layer"] for c in made.checks["checks"] if c["inside"] is not None},
                         {"architecture", "own"})

    def test_a_slow_dram_read_is_abnormal_by_the_architectures_fraction_of_the_chips_peak(self):
        made = built(scaled(part_of("x2a-alone-0"), "Stream/read", 0.9), self.table_without_h200())
        status, line = judge.give(made)
        self.assertEqual(status, verdicts.ABNORMAL, line)
        self.assertIn("stream read (DRAM)", line)
        self.assertIn("architecture limit: at least", line)

    def test_an_unknown_architecture_alone_has_no_limits(self):
        part = part_of("x2a-alone-0")
        context = dict(part.context, gpu_compute_capability="42.0", gpu_name="NVIDIA Future")
        made = built(report_model.Report(context, part.all_rows, part.counter_table), limit_table.load(limit_table.RANGES))
        status, line = judge.give(made)
        self.assertEqual(status, verdicts.NO_LIMITS, line)


class Node(unittest.TestCase):
    """Four boards' check runs as one node (H200: b1eac696, 309057df, 674301d8 and the node run's second GPU)."""

    def parts(self):
        return [part_of("h200a-check-1"), part_of("x2a-alone-0"), part_of("x2a-alone-1"), part_of("x2a-node-plain", 1)]

    def judge(self, parts, limits=NO_LIMITS):
        return judge.judge_cards([(i, built(p, limits)) for i, p in enumerate(parts)], limits)

    def test_a_healthy_node_without_limits_has_none_and_no_fault(self):
        judged = self.judge(self.parts())
        self.assertEqual({s for *_, s, _ in judged}, {verdicts.NO_LIMITS})
        self.assertTrue(all(c["inside"] for _, card_, _, _ in judged for c in card_.checks["checks"]
                            if c["layer"] == "node"))

    def test_the_one_slow_gpu_is_named_by_the_node_alone(self):
        parts = self.parts()
        parts[2] = scaled(parts[2], "Stream/read", 0.9)
        judged = self.judge(parts)
        self.assertEqual([s for *_, s, _ in judged],
                         [verdicts.NO_LIMITS, verdicts.NO_LIMITS, verdicts.ABNORMAL, verdicts.NO_LIMITS])
        self.assertIn("against the node", judged[2][3])
        status, line = judge.node_line(judged)
        self.assertEqual(status, verdicts.ABNORMAL)
        self.assertIn("GPU 2 (GPU-674301d8, 0000:00:07.0): abnormal", line)

    def test_ratios_and_grids_are_not_the_nodes_to_judge(self):
        """A slow stream makes another GPU's chase "against the stream" look fast: ratios are left out; a capacity
        resolved to another point of the grid meets the others' brackets."""
        parts = self.parts()
        parts[0] = scaled(parts[0], "Stream/read", 0.8)
        judged = self.judge(parts)
        keys = {c["key"] for _, card_, _, _ in judged for c in card_.checks["checks"] if c["layer"] == "node"}
        self.assertNotIn("mlp.gpu.fraction_of_stream", keys)
        self.assertNotIn("bandwidth.copy_vs_memcpy", keys)
        self.assertEqual([s for *_, s, _ in judged][1:], [verdicts.NO_LIMITS] * 3)


class UnreadArguments(unittest.TestCase):
    """The full preset reads DSMEM latency at cluster sizes no calibration read (3, 5, 6, 7, 9-15). Two healthy H200s
    of one host (x2c, 2026-11-28-full-node-2gpu) read a cluster of 6 at 215.2 (GPU-710d2f97) and 204.8 cycles
    (GPU-79c1701b), both runs alike: against the bare 4% floor the first was drained. Its read sizes' range is the
    tolerance; a fault past that range is still named."""
    RANGES = {"memory.cluster.dsmem_latency_8": {"median": 205.8, "seen": [193.8, 210.4], "boards": 8},
              "memory.cluster.dsmem_latency_16": {"median": 202.5, "seen": [200.5, 202.5], "boards": 8},
              "memory.cluster.dsmem_latency_max": {"median": 1.0, "seen": [0.0, 1.0], "boards": 8}}
    LIMITS = {"version": 3, "architectures": {"sm_90": {"ranges": RANGES}}, "skus": {}}
    CONTEXT = {"gpu_name": "NVIDIA H200", "gpu_compute_capability": "9.0"}

    def node(self, first, limits):
        def card_of(value):
            return types.SimpleNamespace(
                context=self.CONTEXT,
                values=[{"key": "memory.cluster.dsmem_latency_6", "label": "another block's, cluster of 6",
                         "value": value, "unit": "cycles", "better": "lower", "spread": 0.0}])
        return layers.node_checks([(0, card_of(first)), (1, card_of(204.8))], limits)[0][0]

    def test_a_size_never_read_takes_its_read_sizes_range(self):
        self.assertEqual(sorted(layers.argument_siblings("memory.cluster.dsmem_latency_6", self.RANGES)),
                         ["memory.cluster.dsmem_latency_16", "memory.cluster.dsmem_latency_8"])
        self.assertEqual(layers.argument_siblings("memory.cluster.smem_latency", self.RANGES), [])
        self.assertAlmostEqual(layers.seen_range("memory.cluster.dsmem_latency_6", self.CONTEXT, self.LIMITS),
                               (210.4 - 193.8) / 205.8 * (1 + 2 / 7))
        # A size read keeps its own range.
        self.assertAlmostEqual(layers.seen_range("memory.cluster.dsmem_latency_16", self.CONTEXT, self.LIMITS),
                               2.0 / 202.5 * (1 + 2 / 7))

    def test_the_healthy_pair_is_inside_and_a_fault_past_the_range_named(self):
        self.assertFalse(self.node(215.2, NO_LIMITS)["inside"])  # the bare floor: drained
        self.assertTrue(self.node(215.2, self.LIMITS)["inside"])
        self.assertFalse(self.node(204.8 * 1.15, self.LIMITS)["inside"])


class Links(unittest.TestCase):
    LIMITS = {"link.one_way.fraction_of_link": {"low": 0.8, "better": "higher", "source": "s"}}

    def values(self, n, slow=()):
        found = {}
        for a in range(n):
            for b in range(n):
                if a != b:
                    f = 0.55 if (a, b) in slow or (b, a) in slow else 0.83
                    found[(a, b)] = {"one_way": f * 478e9, "one_way_fraction": f, "both_ways": None,
                                     "both_ways_fraction": None, "latency_cycles": None, "boards": ("x", "y")}
        return found

    def test_the_node_run_of_two_h200s_has_every_link_normal_and_the_planted_one_slow(self):
        # Link limits made from other hosts' node runs (the 4-H200 hosts), never this host's.
        table = leave_out.limits_without(leave_out.boards_of(os.path.join(RUNS, "x2a-node-plain.json")))
        for name, slow in (("x2a-node-plain", False), ("x2a-node-link", True)):
            report = report_model.load(os.path.join(RUNS, name + ".json"))
            values = links.link_values(report)
            self.assertEqual(sorted(values), [(0, 1), (1, 0)])
            checks, named = links.judge(values, links.limits_of(report, table))
            bad, lines = links.lines(checks, named)
            self.assertEqual(bad, slow, lines)
            if slow:
                self.assertTrue(lines[0].startswith("link 0->1: abnormal: copy one way 0.5"), lines)

    def test_one_slow_link_of_four_gpus_is_named_by_the_node_and_the_limit(self):
        checks, named = links.judge(self.values(4, slow={(1, 2)}), self.LIMITS)
        bad, lines = links.lines(checks, named)
        self.assertEqual(named, {})
        self.assertEqual([line.split(":")[0] for line in lines], ["link 1->2", "link 2->1"])
        self.assertIn("against the node", lines[0])

    def test_a_gpu_whose_every_link_is_slow_is_named_not_its_links(self):
        slow = {(2, b) for b in range(4) if b != 2}
        checks, named = links.judge(self.values(4, slow=slow), self.LIMITS)
        bad, lines = links.lines(checks, named)
        self.assertEqual(sorted(named), [2])
        self.assertEqual(lines, ["GPU 2: every link from or to it is slow (6 links): the GPU, not its links"])

    def test_a_latency_the_reading_gpu_sets_is_no_fault_of_its_links(self):
        # As on one host of four H200s: GPUs 0 and 3 read every peer in 800 ns (1583 cycles), GPUs 1 and 2 in 852 ns
        # (1689). Against the node's other links the slower readers' links were "slow"; latency is the architecture's.
        values = self.values(4)
        for (a, b), v in values.items():
            v["latency_cycles"] = 1583.0 if a in (0, 3) else 1689.0
        limits = dict(self.LIMITS, **{"link.latency_cycles": {"high": 1747.0, "better": "lower", "source": "s"}})
        bad, lines = links.lines(*links.judge(values, limits))
        self.assertFalse(bad, lines)
        values[(1, 2)]["latency_cycles"] = 1800.0  # beyond the architecture's limit: still named
        bad, lines = links.lines(*links.judge(values, limits))
        self.assertEqual([line.split(":")[0] for line in lines], ["link 1->2"])

    def test_the_matrix_has_a_row_and_a_column_per_gpu(self):
        text = "\n".join(links.matrix_markdown(self.values(3)))
        self.assertIn("| from \\ to | GPU 0 | GPU 1 | GPU 2 |", text)
        self.assertIn("| GPU 0 | - | 396.7 (83.0%) | 396.7 (83.0%) |", text)


class MeasuredAgainOnOneGpu(unittest.TestCase):
    """The node run with SM 17 of GPU 1 kept busy, measured again by a stand-in gpubench that writes a healthy run
    of GPU 1's board alone: only GPU 1's rows of the family are replaced, GPU 0's stay as they were."""

    def test_only_the_gpu_outside_is_measured_again(self):
        standin = os.path.join(ROOT, "test", "app", "standin_gpubench.py")
        report = report_model.load(os.path.join(RUNS, "x2a-node-gpu.json"))
        limits = leave_out.limits_without(leave_out.boards_of(os.path.join(RUNS, "x2a-node-gpu.json")))
        judged = judge.judge_cards([(g, built(p, limits)) for g, p in report.devices()], limits)
        self.assertEqual([s for *_, s, _ in judged], [verdicts.NORMAL, verdicts.ABNORMAL])
        said = []
        os.environ["STANDIN_RUN"] = os.path.join(RUNS, "x2a-alone-1.json")
        try:
            again = measure_again.measure_again(report, judged, standin, ["--gpubench_preset=check"], said.append)
        finally:
            del os.environ["STANDIN_RUN"]
        self.assertIn("measuring again: SmMap on GPU 1", said[0])
        before = sorted(r.full_name for r in report.all_rows if r.family == "SmMap" and r.gpu == 0)
        after = sorted(r.full_name for r in again.all_rows if r.family == "SmMap" and r.gpu == 0)
        self.assertEqual(before, after)
        self.assertEqual(len([r for r in again.all_rows if r.family == "SmMap" and r.gpu == 1]), len(before))
        rejudged = judge.judge_cards([(g, built(p, limits)) for g, p in again.devices()], limits)
        self.assertEqual([s for *_, s, _ in rejudged], [verdicts.NORMAL, verdicts.NORMAL])


class Busy(unittest.TestCase):
    def test_other_processes_at_the_start_or_the_end_make_it_busy(self):
        self.assertIsNone(layers.busy_text({"gpubench_other_gpu_processes": "none"}))
        self.assertIsNone(layers.busy_text({"gpubench_other_gpu_processes": "unknown (nvidia-smi failed)"}))
        text = layers.busy_text({"gpubench_other_gpu_processes": "none",
                                  "gpubench_other_gpu_processes_end": "1 (pid 7 python3 100 MiB)"})
        self.assertEqual(text, "at the end 1 (pid 7 python3 100 MiB)")
        context = json.loads(json.dumps(part_of("x2a-node-link", 0).context))
        self.assertIn("python3", layers.busy_text(context))


class NearALimit(unittest.TestCase):
    """A value past a one-sided limit by less than its own uncertainty is not proven outside (ISO 14253-1): it is
    inside, and measured again before the verdict; one past it by more is outside; one inside it is never measured
    again. The normal verdict of a run that states precision names the value closest to its limit, with the margin."""

    def check(self, value, precision, better="higher", low=100.0, high=None):
        return {"key": "k", "label": "DRAM read", "value": value, "unit": "GB/s", "better": better, "low": low,
                "high": high, "inside": True, "layer": "sku", "precision": precision}

    def test_outside_only_beyond_the_values_own_uncertainty(self):
        # +-4% stated (a repeat's 95% range) is +-2.83% for one reading: 97.5 is not proven below 100, 97.0 is.
        self.assertTrue(limit_table.judge({"value": 97.5, "better": "higher", "precision": 0.04}, {"low": 100.0}))
        self.assertFalse(limit_table.judge({"value": 97.0, "better": "higher", "precision": 0.04}, {"low": 100.0}))
        self.assertFalse(limit_table.judge({"value": 99.9, "better": "higher"}, {"low": 100.0}), "none stated")
        self.assertTrue(limit_table.judge({"value": 102.5, "better": "lower", "precision": 0.04}, {"high": 100.0}))
        self.assertFalse(limit_table.judge({"value": 103.5, "better": "lower", "precision": 0.04}, {"high": 100.0}))

    def test_near_is_past_the_limit_within_the_uncertainty(self):
        self.assertEqual(judge.near({"checks": [self.check(99.5, 0.01)]})[0]["key"], "k")
        self.assertEqual(judge.near({"checks": [self.check(100.5, 0.01)]}), [], "inside: not measured again")
        self.assertEqual(judge.near({"checks": [self.check(99.5, None)]}), [], "fixed effort states none")
        lower = self.check(100.5, 0.01, better="lower", low=None, high=100.0)
        self.assertAlmostEqual(wording.margin(lower), -0.005)
        self.assertEqual(len(judge.near({"checks": [lower]})), 1)
        self.assertIsNone(wording.margin(self.check(101.0, 0.01, high=120.0)), "two-sided: no margin")

    def test_the_closest_value_is_said_with_its_margin(self):
        text = wording.closest_text([self.check(110.0, 0.01), self.check(102.0, 0.005)])
        self.assertEqual(text, "; closest to its limit: DRAM read 2.0% inside (at least 100, value +-0.5%)")
        self.assertEqual(wording.closest_text([self.check(110.0, None)]), "")


if __name__ == "__main__":
    unittest.main()
