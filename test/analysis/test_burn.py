"""The burn and memtest presets' verdicts on runs of four H100s (test/fixtures/h100x4-burn.json.gz: 120 s, every GPU
at once; h100x4-memtest.json.gz) and a burn of one H100 with a product's bit flipped (h100-burnplant.json.gz): healthy
runs are normal; a GPU whose GEMM rate sits 15% under its node's others is named by the node layer; one 7% under is
not (gpu-fryer's 10%), but its SKU's limit names it (4% under the calibration boards' median), and 2% under neither; a
rate that falls over the burn is the own layer's; the hardware holding the clocks is a finding
with its reason and the second it began, SW thermal a warning, the power cap neither; a wrong product and a wrong
memory word are wrong results; the node card sets the burn's values side by side."""
import copy
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
from analysis.cards.families import burn  # noqa: E402
from analysis.model import report as report_model  # noqa: E402
from analysis.verdict import judge, node_card  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict.table import ABNORMAL, BUSY, NORMAL, WRONG  # noqa: E402

from fixtures import fixture, judged  # noqa: E402


def burn_row(data, gpu):
    return next(b for b in data["benchmarks"] if f"/gpu:{gpu}/" in b["name"])


def scale_rate(row, factor, from_second=0):
    """The row's GEMM rate times `factor` (its series from `from_second` on; its totals by the same share)."""
    rates = row["gpubench"]["series"]["gemm_tflops"]
    for i in range(from_second, len(rates)):
        rates[i] *= factor
    row["gemm_tflops"] = sum(rates) / len(rates)
    tail = rates[len(rates) * 3 // 4:]
    row["gemm_tflops_end"] = sum(tail) / len(tail)


def plant_reasons(row, bits, from_second):
    reasons = row["gpubench"]["series"]["clock_reasons"]
    for i in range(from_second - 1, len(reasons)):
        reasons[i] = float(int(reasons[i]) | bits)


def status_of(cards, gpu):
    return next(s for g, _, s, _ in cards if g == gpu)


class BurnVerdicts(unittest.TestCase):
    def setUp(self):
        self.data = fixture("h100x4-burn.json.gz")

    def test_the_healthy_node_is_normal_on_its_own_and_node_checks(self):
        cards, node = judged(self.data)
        self.assertEqual([s for *_, s, _ in cards], [NORMAL] * 4)
        self.assertEqual(node["status"], NORMAL)
        for _, card, _, line in cards:
            layers = {c["layer"] for c in card.checks["checks"] if c["key"].startswith("burn.")}
            self.assertEqual(layers, {"own", "node", "sku"})  # the SKU's burn limits (reference_ranges.json)
            self.assertIn("the burn preset's", line)
            self.assertEqual(judge.family_findings(card.report), [])  # the power cap alone held the clocks

    def test_a_gpu_15_percent_slower_is_named_by_its_node_7_percent_by_its_sku_and_2_percent_by_neither(self):
        scale_rate(burn_row(self.data, 2), 0.85)
        cards, node = judged(self.data)
        self.assertEqual(status_of(cards, 2), ABNORMAL)
        self.assertEqual([status_of(cards, g) for g in (0, 1, 3)], [NORMAL] * 3)
        line = next(line for g, _, _, line in cards if g == 2)
        self.assertIn("FP16 GEMM rate under burn", line)
        self.assertIn("node", line)
        self.assertEqual(node["status"], ABNORMAL)
        # 7% slower: inside the node's 10% (gpu-fryer's rule), below the SKU's limit (4% under its boards' median).
        data = fixture("h100x4-burn.json.gz")
        scale_rate(burn_row(data, 2), 0.93)
        cards, _ = judged(data)
        self.assertEqual(status_of(cards, 2), ABNORMAL)
        card = next(c for g, c, _, _ in cards if g == 2)
        outside = {c["layer"] for c in card.checks["checks"] if c["key"] == "burn.gemm_tflops" and c["inside"] is False}
        self.assertEqual(outside, {"sku"})
        # 2% slower: inside both.
        data = fixture("h100x4-burn.json.gz")
        scale_rate(burn_row(data, 2), 0.98)
        cards, _ = judged(data)
        self.assertEqual(status_of(cards, 2), NORMAL)

    def test_another_process_during_the_burn_is_busy_whatever_the_rates(self):
        self.data["context"]["gpubench_other_gpu_processes_during/gpu:1"] = (
            "1 (pid 4242 python3 from 6.1 s to 80.3 s of the run, 1 rows from Burn/gemm_and_memory)")
        scale_rate(burn_row(self.data, 1), 0.5)
        cards, _ = judged(self.data)
        self.assertEqual(status_of(cards, 1), BUSY)
        self.assertEqual([status_of(cards, g) for g in (0, 2, 3)], [NORMAL] * 3)

    def test_compare_of_two_burns_says_it_judges_none_of_their_rows(self):
        import subprocess
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "burn.json")
            with open(path, "w") as f:
                json.dump(self.data, f)
            done = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "compare.py"), path, path,
                                   "--threshold", "2"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("the rows of Burn have no class of measurement: compare shows them and judges none",
                      done.stderr)

    def test_a_slow_gpu_of_a_burn_is_not_measured_again(self):
        from analysis.running import measure_again
        scale_rate(burn_row(self.data, 2), 0.85)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.json")
            with open(path, "w") as f:
                json.dump(self.data, f)
            report = report_model.load(path)
            cards = judge.judge_all(report, limit_table.load(limit_table.RANGES))
            said = []
            kept = measure_again.measure_again(report, cards, "/nonexistent/gpubench", [], said.append)
        self.assertIs(kept, report)
        self.assertEqual(said, [])

    def test_a_rate_that_falls_as_the_burn_goes_on_is_the_own_layers(self):
        scale_rate(burn_row(self.data, 3), 0.8, from_second=60)
        cards, _ = judged(self.data)
        card = next(c for g, c, _, _ in cards if g == 3)
        held = next(c for c in card.checks["checks"] if c["key"] == "burn.gemm_held")
        self.assertFalse(held["inside"])
        self.assertEqual(held["layer"], "own")
        self.assertEqual(status_of(cards, 3), ABNORMAL)

    def test_hardware_holding_the_clocks_drains_with_its_reason_and_start(self):
        plant_reasons(burn_row(self.data, 1), 0x8, from_second=42)
        cards, node = judged(self.data)
        self.assertEqual(status_of(cards, 1), ABNORMAL)
        line = next(line for g, _, _, line in cards if g == 1)
        self.assertIn("HW slowdown held the clocks under the burn from 42 s", line)
        self.assertIn("burn_hw_slowdown", line)
        self.assertEqual(node["status"], ABNORMAL)

    def test_a_planted_reason_says_so_with_the_real_reading_beside_it(self):
        row = burn_row(self.data, 2)
        row["gpubench"]["series"]["clock_reasons_real"] = list(row["gpubench"]["series"]["clock_reasons"])
        plant_reasons(row, 0x40, from_second=30)
        row["label"] = "clock-event reasons planted: GPUBENCH_PLANT_BURN=reasons_at=30:0x40"
        cards, _ = judged(self.data)
        line = next(line for g, _, _, line in cards if g == 2)
        self.assertIn("HW thermal slowdown held the clocks under the burn from 30 s", line)
        self.assertIn("[planted; real reading SW power cap]", line)

    def test_sw_thermal_warns_and_the_power_cap_is_said_not_judged(self):
        plant_reasons(burn_row(self.data, 0), 0x20, from_second=100)
        cards, _ = judged(self.data)
        self.assertEqual(status_of(cards, 0), NORMAL)
        _, card, _, line = cards[0]
        self.assertIn("warnings: SW thermal slowdown held the clocks under the burn from 100 s", line)
        events = next(v for v in card.values if v["key"] == "burn.clock_events")
        self.assertIn("SW power cap from 1 s", events["text"])

    def test_a_wrong_product_is_a_wrong_result(self):
        cards, _ = judged(fixture("h100-burnplant.json.gz"))
        self.assertEqual(cards[0][2], WRONG)
        cards, _ = judged(copy.deepcopy(self.data) | {"benchmarks": [
            dict(b, wrong_words=2.0) if "/gpu:1/" in b["name"] else b for b in self.data["benchmarks"]]})
        self.assertEqual(status_of(cards, 1), WRONG)

    def test_the_node_card_sets_the_burn_side_by_side(self):
        cards, node = judged(self.data)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.json")
            with open(path, "w") as f:
                json.dump(self.data, f)
            report = report_model.load(path)
        text = node_card.node_markdown(report, [(g, c) for g, c, *_ in cards], {}, [], node["line"])
        self.assertIn("| GEMM under burn (TFLOP/s) | 712.2 | 718.8 | 706.5 | 708.9 |", text)
        self.assertNotIn("DRAM read", text)  # no GPU of the burn measured it
        self.assertIn("- GPU 2: normal: the burn preset's", text)

    def test_fewer_than_eight_seconds_state_no_held_rate(self):
        row = burn_row(self.data, 0)
        short = copy.deepcopy(row)
        for name in short["gpubench"]["series"]:
            short["gpubench"]["series"][name] = short["gpubench"]["series"][name][:5]
        self.assertIsNone(burn.quarter_rates(report_model.Row(short)))
        self.assertEqual(len(burn.quarter_rates(report_model.Row(row))), 2)


class MemtestPreset(unittest.TestCase):
    def test_a_clean_node_is_normal_and_a_wrong_word_is_wrong(self):
        data = fixture("h100x4-memtest.json.gz")
        cards, node = judged(data)
        self.assertEqual([s for *_, s, _ in cards], [NORMAL] * 4)
        self.assertIn("the memtest preset's", cards[0][3])
        for b in data["benchmarks"]:
            if "/gpu:3/" in b["name"]:
                b["wrong_words"] = 1.0
        cards, node = judged(data)
        self.assertEqual(status_of(cards, 3), WRONG)
        self.assertEqual(node["status"], WRONG)


if __name__ == "__main__":
    unittest.main()
