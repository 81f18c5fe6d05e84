"""A family gpubench has no rules for (a kernel of one's own, built against the installed package: docs/your-kernel.md):
the card lists its rows' declared results with the precision their declared class states (a class declared in the
registration, gpubench::noise_class, or on compare's command line), says no class where none was declared, shows no
section of gpubench's own families, and concludes nothing; compare judges the rows by the declared class (a planted 3%
slower result found, identical runs quiet), says which family lacks a class, and refuses an unknown class with one
line."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
from analysis.cards import noise  # noqa: E402
from analysis.cards.card import Card  # noqa: E402
from analysis.model import report as report_model  # noqa: E402

CONTEXT = {"gpu_name": "NVIDIA H100 80GB HBM3", "gpu_uuid": "GPU-00000000-user", "gpu_compute_capability": "9.0",
           "gpubench_preset": "quick", "gpubench_source_version": "test", "gpubench_rows_planned": "2",
           "date": "2026-11-27T21:00:00+00:00", "host_name": "test"}


def saxpy_row(mib, rate, noise_class="dram_bandwidth", within=0.002):
    gpubench = {"registered": "Saxpy/fp32", "family": "Saxpy", "args": {"MiB": mib}, "gpu": None, "users_family": True,
                "results": {"bytes_per_second": "higher"},
                "precision": {"estimator": "mean", "sampling_confidence": 0.95, "samples": 200, "stop": "target",
                              "target": 0.005, "sampling_s": 0.1, "time": {"mean_ms": 1.0, "half_width": within},
                              "sampling_intervals": {"bytes_per_second": {"half_width": within}}}}
    if noise_class:
        gpubench["noise_class"] = {"*": noise_class}
    name = f"Saxpy/fp32/MiB:{mib}/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
            "threads": 1, "iterations": 1, "real_time": 1e6, "cpu_time": 1e6, "time_unit": "ns",
            "bytes_per_second": rate, "gpubench": gpubench}


def run(rows):
    return {"context": dict(CONTEXT), "benchmarks": rows}


def write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(data, f)
    return path


def card_text(data):
    with tempfile.TemporaryDirectory() as folder:
        report = report_model.load(write(folder, "run.json", data))
    return Card(report).build().to_markdown()


class OwnFamilyCard(unittest.TestCase):
    def test_the_card_lists_the_rows_with_their_declared_class_and_nothing_of_gpubenchs(self):
        text = card_text(run([saxpy_row(256, 2.9e12), saxpy_row(1024, 2.95e12, noise_class=None)]))
        self.assertIn("## Rows of families without card rules", text)
        self.assertIn("| `Saxpy/fp32/MiB:256` | bytes_per_second (higher) | 2.9e+12 |", text)
        self.assertIn("| dram_bandwidth |", text)
        self.assertIn("(its own run only: no class)", text)
        self.assertNotIn("not measured", text)  # no section of gpubench's own families
        self.assertNotIn("missing", text)  # nor limits it does not set out to meet

    def test_the_verdict_judges_nothing_and_says_why(self):
        from analysis.verdict import judge, limits as limit_table
        with tempfile.TemporaryDirectory() as folder:
            report = report_model.load(write(folder, "run.json", run([saxpy_row(256, 2.9e12)])))
        card = judge.build(report, limit_table.load(limit_table.RANGES))
        status, line = judge.give(card)
        self.assertEqual(line, "no limits: the run's rows are of families gpubench has no rules for (a kernel of your "
                               "own); nothing judged")


class OwnFamilyCompare(unittest.TestCase):
    def compare(self, before, after, *flags):
        with tempfile.TemporaryDirectory() as folder:
            return subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "compare.py"),
                                   write(folder, "before.json", before), write(folder, "after.json", after),
                                   "--threshold", "2", *flags], capture_output=True, text=True)

    def test_a_planted_3_percent_is_found_and_identical_runs_are_quiet(self):
        before = run([saxpy_row(256, 2.9e12), saxpy_row(1024, 2.95e12)])
        self.assertEqual(self.compare(before, copy.deepcopy(before)).returncode, 0)
        slower = copy.deepcopy(before)
        slower["benchmarks"][0]["bytes_per_second"] *= 0.97
        done = self.compare(before, slower)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("Saxpy/fp32/MiB:256", done.stderr)

    def test_without_a_class_rows_are_shown_not_judged_and_a_flag_declares_one(self):
        before = run([saxpy_row(256, 2.9e12, noise_class=None)])
        slower = copy.deepcopy(before)
        slower["benchmarks"][0]["bytes_per_second"] *= 0.97
        unjudged = self.compare(before, slower)
        self.assertEqual(unjudged.returncode, 2)
        self.assertIn("the rows of Saxpy declare no class of measurement", unjudged.stderr)
        self.assertEqual(self.compare(before, slower, "--class", "Saxpy=dram_bandwidth").returncode, 1)

    def test_a_floor_learned_from_the_users_own_repeated_runs_quiets_them_and_still_finds_the_plant(self):
        # fma_chain on an H100 (docs/results/2026-11-27-your-kernel, p2): three identical runs and a 3% slower build.
        # Under the sm_clocks floor (0.5%) runs 2 and 3 differ in fma_per_second by 0.72%; the floor make_noise.py
        # --rule learns from the three runs quiets that pair, and the planted build is still found.
        import tarfile
        archive = os.path.join(ROOT, "docs", "results", "2026-11-27-your-kernel", "raw.tar.xz")
        with tempfile.TemporaryDirectory() as folder:
            with tarfile.open(archive) as packed:
                for name in ("p2-fma-1", "p2-fma-2", "p2-fma-3", "p2-fma3"):
                    member = packed.getmember(f"runs/{name}.json")
                    with open(os.path.join(folder, name + ".json"), "wb") as f:
                        f.write(packed.extractfile(member).read())
            run_path = {n: os.path.join(folder, n + ".json") for n in ("p2-fma-1", "p2-fma-2", "p2-fma-3", "p2-fma3")}
            model = os.path.join(folder, "model.json")
            with open(os.path.join(ROOT, "analysis", "cards", "noise_model.json")) as f:
                shipped_model = json.load(f)

            def compare(before, after, *flags):
                return subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "compare.py"), run_path[before],
                                       run_path[after], "--threshold", "2", *flags], capture_output=True, text=True)
            # The shipped model never measured the user's rows: their results get their class's widest floor (sm_clocks:
            # 1.3%, noise.RULE_ROWS), which quiets the pair and still finds the 2.3% plant.
            self.assertIn("6 same", compare("p2-fma-2", "p2-fma-3").stdout)
            self.assertEqual(compare("p2-fma-1", "p2-fma3").returncode, 1)
            # Under the class's typical floor (0.5%), the pair was called slower.
            typical = {k: v for k, v in shipped_model.items() if k != noise.RULE_ROWS}
            with open(model, "w") as f:
                json.dump(typical, f)
            self.assertIn("1 slower", compare("p2-fma-2", "p2-fma-3", "--noise", model).stdout)
            # The floor make_noise.py --rule learns from the user's three runs quiets the pair; the plant is found.
            made = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "tables", "make_noise.py"), "--rule",
                                   "--min-skus", "1", "--source", "test", "--out", model, run_path["p2-fma-1"],
                                   run_path["p2-fma-2"], run_path["p2-fma-3"]], capture_output=True, text=True)
            self.assertEqual(made.returncode, 0, made.stderr)
            learned = compare("p2-fma-2", "p2-fma-3", "--noise", model)
            self.assertEqual(learned.returncode, 0)
            self.assertIn("6 same", learned.stdout)
            planted = compare("p2-fma-1", "p2-fma3", "--noise", model)
            self.assertEqual(planted.returncode, 1)
            self.assertIn("chains:1/manual_time cycles_per_fma +2.3%", planted.stderr)

    def test_an_unknown_class_is_one_line(self):
        before = run([saxpy_row(256, 2.9e12)])
        done = self.compare(before, before, "--class", "Saxpy=dram")
        self.assertEqual(done.returncode, 2)
        self.assertIn("'dram' is not a class", done.stderr)
        self.assertNotIn("Traceback", done.stderr)


if __name__ == "__main__":
    unittest.main()
