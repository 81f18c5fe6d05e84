#!/usr/bin/env python3
"""--gpubench_device with a list, on the host (list mode needs no GPU): every GPU row once per GPU with
/gpu:N after its registered name, in GPU order; host rows once, unsuffixed; bad lists exit 2 naming the
flag."""
import os
import subprocess
import sys
import unittest

GPUBENCH = sys.argv.pop(1) if len(sys.argv) > 1 else "gpubench"


def listed(*flags):
    done = subprocess.run([GPUBENCH, "--benchmark_list_tests", *flags], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout.split()


class ExitStatuses(unittest.TestCase):
    def test_help_lists_the_one_table_of_verdicts(self):
        """gpubench's exit statuses come from analysis/verdict/verdicts.json, written into it at build time."""
        import json
        import os
        table = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis", "verdict", "verdicts.json")
        with open(table) as f:
            verdicts = json.load(f)["verdicts"]
        done = subprocess.run([GPUBENCH, "--help"], capture_output=True, text=True, timeout=60)
        for v in verdicts:
            self.assertIn(f"  {v['exit']}  with --gpubench_verdict: {v['meaning']} ({v['action']} the node)", done.stdout)

    def test_help_puts_the_exit_statuses_before_google_benchmarks_flags_and_version_says_the_source(self):
        done = subprocess.run([GPUBENCH, "--help"], capture_output=True, text=True, timeout=60)
        self.assertLess(done.stdout.index("Exit status"), done.stdout.index("Google Benchmark flags:"))
        version = subprocess.run([GPUBENCH, "--version"], capture_output=True, text=True, timeout=60)
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertRegex(version.stdout, r"^gpubench \S+ \(Google Benchmark \d+\.\d+\)\n$")

    def test_the_python_that_makes_the_card_is_started_before_a_run(self):
        """gpubench starts the Python it is given (app/spawn.h) before any row: one that does not run is said at once."""
        bad = subprocess.run([GPUBENCH, "--gpubench_python=/no/such/python3", "--benchmark_list_tests"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertIn("--gpubench_python=/no/such/python3 (or GPUBENCH_PYTHON) does not run", bad.stderr)
        good = subprocess.run([GPUBENCH, f"--gpubench_python={sys.executable}", "--benchmark_list_tests"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(good.returncode, 0, good.stderr)

    def test_a_node_run_needs_its_report_file(self):
        done = subprocess.run([GPUBENCH, "--gpubench_device=0,1", "--benchmark_filter=^Stream/read"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("a run over several GPUs writes one report of the node: add --benchmark_out=FILE", done.stderr)


class DeviceList(unittest.TestCase):
    def test_every_gpu_row_once_per_gpu_and_host_rows_once(self):
        one = listed()
        both = listed("--gpubench_device=1,0")
        host = [n for n in one if "CPU" in n.split("/")[0]]
        gpu = [n for n in one if n not in host and not n.startswith("Peer/")]
        self.assertTrue(host and gpu)
        for name in host:
            self.assertEqual(both.count(name), 1, name)
        tagged = [n for n in both if "/gpu:" in n]
        self.assertEqual(len(tagged) + len(host), len(both))
        # GPU after GPU, in the order asked: all of GPU 1's rows, then GPU 0's.
        order = [n.split("/gpu:")[1].split("/")[0] for n in tagged]
        self.assertEqual(order, sorted(order, key=lambda g: g != "1"))
        for gpu_name in gpu[:20]:
            family, rest = gpu_name.split("/", 1)
            self.assertTrue(any(n.startswith(family + "/") and "/gpu:1/" in n or n.startswith(family + "/gpu:1")
                                for n in tagged), gpu_name)
        self.assertEqual(sum(1 for n in tagged if "/gpu:0" in n), sum(1 for n in tagged if "/gpu:1" in n))

    def test_peer_rows_talk_to_the_other_gpu(self):
        both = listed("--gpubench_device=0,1", "--benchmark_filter=^Peer/copy")
        self.assertIn("Peer/copy/gpu:0/peer:1/MiB:2048/direction:0/manual_time", both)
        self.assertIn("Peer/copy/gpu:1/peer:0/MiB:2048/direction:0/manual_time", both)

    def test_bad_lists_are_refused_naming_the_flag(self):
        for bad in ("0,0", "1,", "x", "all,1"):
            done = subprocess.run([GPUBENCH, f"--gpubench_device={bad}", "--benchmark_list_tests"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 2, bad)
            self.assertIn("--gpubench_device", done.stderr)

    def test_output_paths_that_cannot_be_written_are_refused_before_the_run(self):
        for flag, path in (("--benchmark_out", "/nonexistent-folder/run.json"),
                           ("--gpubench_card", "/nonexistent-folder/card"), ("--gpubench_card", "/etc/passwd/card")):
            done = subprocess.run([GPUBENCH, f"{flag}={path}", "--benchmark_out_format=json"],
                                  capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
            self.assertIn(f"{flag}={path}", done.stderr)


    def test_a_misspelt_plant_is_refused_at_start_naming_its_variable(self):
        # Before: a malformed plant failed the rows it touches, an incomplete verdict that drains (x4c, 2026-11-28).
        for variable, bad in (("GPUBENCH_PLANT_HOSTLINK", "half@x"), ("GPUBENCH_PLANT_HOSTLINK", "0"),
                              ("GPUBENCH_PLANT_MEMORY", "12"), ("GPUBENCH_PLANT_BURN", "wrong_at=x"),
                              ("GPUBENCH_PLANT", "busy_sm:x"), ("GPUBENCH_PLANT", "flip_bit@-1"),
                              ("GPUBENCH_PLANT_HEALTH", "foo@1")):
            done = subprocess.run([GPUBENCH, "--benchmark_list_tests"], capture_output=True, text=True, timeout=60,
                                  env={**os.environ, variable: bad})
            self.assertEqual(done.returncode, 2, f"{variable}={bad}: {done.stderr}")
            self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
            self.assertTrue(done.stderr.startswith(f"gpubench: {variable}={bad}: "), done.stderr)
            self.assertEqual(done.stdout, "")
        for variable, good in (("GPUBENCH_PLANT_HOSTLINK", "1@2"), ("GPUBENCH_PLANT_MEMORY", "0x1000:3"),
                               ("GPUBENCH_PLANT_BURN", "wrong_at=5,reasons_at=8:0x8@2"), ("GPUBENCH_PLANT", "busy_sm:3@1"),
                               ("GPUBENCH_PLANT_HEALTH", "end.nvlink_crc_by_link.5=200000")):
            done = subprocess.run([GPUBENCH, "--benchmark_list_tests", "--benchmark_filter=HostLink"],
                                  capture_output=True, text=True, timeout=60, env={**os.environ, variable: good})
            self.assertEqual(done.returncode, 0, f"{variable}={good}: {done.stderr}")
            self.assertIn("HostLink/copy", done.stdout)


if __name__ == "__main__":
    unittest.main()
