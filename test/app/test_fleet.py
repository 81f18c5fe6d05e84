#!/usr/bin/env python3
"""Fleets: the fleet report on the committed two-H200 run and on synthetic fleets with a planted slow GPU,
and the Slurm recipe (analysis/fleet.sbatch) for real on this machine: slurmctld and slurmd on localhost
(Debian's slurm-wlm, munge), one job over the node, host rows (PointerChaseCPU), one JSON per node, the
report. The Slurm test skips with the reason where Slurm cannot run (not installed, not root)."""
import copy
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FLEET = os.path.join(ROOT, "analysis", "fleet.py")
SBATCH = os.path.join(ROOT, "analysis", "fleet.sbatch")
# A check of an H100 board no limit was made from (the H100 limits come from 2026-11-25-verdicts, -checks and
# 2026-11-26-verdicts): judging a run the limits were made from would prove nothing.
CHECK_RUN = os.path.join(ROOT, "docs", "results", "2026-11-26-precision", "raw.tar.xz", "runs", "h100-eb10873e-check-1.json")
# The check of a node of two H200s, every GPU at once (board 309057df and 674301d8, 2026-11-26).
TWO_H200 = os.path.join(ROOT, "docs", "results", "2026-11-26-verdicts", "raw.tar.xz", "runs", "x2a-node-plain.json")
HELD_OUT = os.path.join(ROOT, "docs", "results", "2026-11-26-precision", "raw.tar.xz", "runs")
GPUBENCH = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else shutil.which("gpubench")
STANDIN = os.path.join(HERE, "standin_gpubench.py")
sys.path.insert(0, ROOT)
from analysis.model import archive  # noqa: E402


def report(paths, *flags):
    return subprocess.run([sys.executable, FLEET, *paths, *flags], capture_output=True, text=True, timeout=120)


class FleetReport(unittest.TestCase):
    def test_the_two_h200_host_reads_as_one_node_of_two_gpus(self):
        # Judged by limits made without this host's boards (test/analysis/leave_out.py).
        sys.path.insert(0, os.path.join(ROOT, "test", "analysis"))
        import leave_out
        with tempfile.TemporaryDirectory() as tmp:
            table = os.path.join(tmp, "limits.json")
            with open(table, "w") as f:
                json.dump(leave_out.limits_without(leave_out.boards_of(TWO_H200)), f)
            done = report([TWO_H200], "--check", "--ranges", table)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = [line for line in done.stdout.splitlines() if line.startswith("| x2a-node-plain (vm) |")
                and "NVIDIA" in line]
        self.assertEqual(len(rows), 2, done.stdout)
        self.assertIn("None flagged", done.stdout)

    def test_the_node_links_are_a_table_and_a_slow_one_is_flagged(self):
        done = report([TWO_H200], "--check")
        self.assertIn("## Links", done.stdout)
        self.assertIn("| x2a-node-plain (vm) | 0->1 | 396.2 | 82.9% | 781.9 | 1678 |  |", done.stdout)
        slow = os.path.join(ROOT, "docs", "results", "2026-11-26-verdicts", "raw.tar.xz", "runs", "x2a-node-link.json")
        done = report([slow], "--check")
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("| x2a-node-link (vm) | 0->1 | 265.2 | 55.5% |", done.stdout)
        self.assertIn("**copy one way 0.5548 (architecture)", done.stdout)
        self.assertIn("x2a-node-link.json]", done.stdout)  # the flag names its file
        self.assertIn("and 2 link(s).**", done.stdout)  # the header counts the links it flags

    def test_a_planted_slow_gpu_is_flagged_against_the_median(self):
        run = json.loads(archive.read(TWO_H200))
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for n in range(3):  # three nodes of two H200 each; node-2's GPU 1 reads DRAM 20% slower
                node = copy.deepcopy(run)
                node["context"]["host_name"] = f"node-{n}"
                if n == 2:
                    for row in node["benchmarks"]:
                        if row["name"].startswith("Stream/read/") and "/gpu:1/" in row["name"]:
                            row["bytes_per_second"] *= 0.8
                paths.append(os.path.join(tmp, f"node-{n}.json"))
                with open(paths[-1], "w") as f:
                    json.dump(node, f)
            done = report(paths, "--check")
        self.assertEqual(done.returncode, 1, done.stderr)
        flagged = [line for line in done.stdout.splitlines() if line.startswith("- ")]
        self.assertTrue(flagged, done.stdout)
        self.assertTrue(all(line.startswith("- node-2 GPU 1 (GPU-674301d8) [") for line in flagged), flagged)
        self.assertIn("node-2.json]: DRAM read -20.0%", flagged[0])
        self.assertIn("from the fleet's median", flagged[0])

    def test_the_fleet_adds_every_node_to_the_history(self):
        with tempfile.TemporaryDirectory() as tmp:
            store = os.path.join(tmp, "history.sqlite")
            done = report([TWO_H200], "--history", store)
            again = report([TWO_H200], "--history", store)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("fleet.py: history: 2 GPU run(s) added to", done.stderr)
        self.assertIn("fleet.py: history: 0 GPU run(s) added to", again.stderr)  # a run is kept once

    def test_hosts_that_share_a_name_are_nodes_of_their_own(self):
        run = json.loads(archive.read(TWO_H200))
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for n in range(3):  # three nodes that all call themselves "vm"
                paths.append(os.path.join(tmp, f"rack1-{n}.json"))
                with open(paths[-1], "w") as f:
                    json.dump(run, f)
            done = report(paths, "--check")
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertIn("3 node(s), 6 GPU(s)", done.stdout)
        self.assertIn("| rack1-2 (vm) | 1 NVIDIA H200 |", done.stdout)

    def h100_fleet(self, tmp, change=None):
        """Three H100 nodes from checks of boards no limit was made from (one JSON and its card files each);
        change(n, run) edits one."""
        paths = []
        for n, name in enumerate(("h100-eb10873e-check-1", "h100-0b23357e-check-1", "h100-0f9004ee-check-1")):
            run = json.loads(archive.read(os.path.join(HELD_OUT, name + ".json")))
            run["context"]["host_name"] = f"node-{n}"
            if change:
                change(n, run)
            paths.append(os.path.join(tmp, f"node-{n}.json"))
            with open(paths[-1], "w") as f:
                json.dump(run, f)
            for card_file in (f"node-{n}.card.json", f"node-{n}.card-gpu0.json"):  # as gpubench writes them
                with open(os.path.join(tmp, card_file), "w") as f:
                    json.dump({"device": {}, "values": []}, f)
        return sorted(glob.glob(os.path.join(tmp, "*.json")))

    def test_a_slow_h100_is_outside_the_skus_limit_and_card_files_are_skipped(self):
        def slow(n, run):
            for row in run["benchmarks"]:
                if n == 2 and row["name"].startswith("Stream/read/"):
                    row["bytes_per_second"] *= 0.9
        with tempfile.TemporaryDirectory() as tmp:
            done = report(self.h100_fleet(tmp, slow), "--check")
        self.assertEqual(done.returncode, 1, done.stderr)
        flagged = [line for line in done.stdout.splitlines() if line.startswith("- ")]
        self.assertTrue(flagged and all(line.startswith("- node-2 GPU 0 (") for line in flagged), done.stdout)
        self.assertIn("outside (H100 SXM5 80GB HBM3 sku limit: at least ", flagged[0])

    def test_a_node_whose_rows_failed_is_flagged_incomplete(self):
        def broken(n, run):
            for row in run["benchmarks"]:
                if n == 1 and row["name"].startswith("Stream/"):
                    row.update({"error_occurred": True, "error_message": "out of memory"})
        with tempfile.TemporaryDirectory() as tmp:
            done = report(self.h100_fleet(tmp, broken), "--check")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertRegex(done.stdout, r"- node-1 GPU 0 \(GPU-[0-9a-f]{8}\) \[.*node-1.json\]: check incomplete:")
        self.assertIn("(out of memory)", done.stdout)

    def test_a_damaged_node_file_is_listed_and_the_others_reported(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = self.h100_fleet(tmp)
            with open(os.path.join(tmp, "node-1.json"), "w") as f:
                f.write('{"context": {"gpu_name": "NVIDIA H100 80GB HBM3"}, "benchmarks": [')  # cut off mid-write
            done = report(paths, "--check")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("2 GPU(s) or host(s)", done.stdout)
        self.assertIn("## Files that could not be read", done.stdout)
        self.assertIn("node-1.json: not valid JSON", done.stdout)


def slurm_missing():
    """Why Slurm cannot run here, or None."""
    for tool in ("slurmctld", "slurmd", "sbatch", "sinfo", "munged", "munge"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: apt-get install slurm-wlm)"
    if os.geteuid() != 0:
        return "slurmd needs root here"
    if GPUBENCH is None:
        return "no gpubench binary given"
    return None


class SlurmNode(unittest.TestCase):
    """slurmctld + slurmd on this machine (one node, this host), for a test class of its own."""

    ready_states = ("idle",)  # sinfo's node states that mean Slurm is up

    def extra_conf(self):
        """Lines a subclass adds to slurm.conf (a HealthCheckProgram)."""
        return ""

    def setUp(self):
        why = slurm_missing()
        if why:
            self.skipTest(f"Slurm cannot run here: {why}")
        self.tmp = tempfile.mkdtemp(prefix="gpubench-slurm-")
        self.started = []
        self.host = socket.gethostname().split(".")[0]
        conf = os.path.join(self.tmp, "slurm.conf")
        with open(conf, "w") as f:
            f.write(f"""ClusterName=gpubench-test
SlurmctldHost={self.host}(127.0.0.1)
SlurmUser=root
SlurmctldPort=16917
SlurmdPort=16918
AuthType=auth/munge
StateSaveLocation={self.tmp}/state
SlurmdSpoolDir={self.tmp}/spool
SlurmctldPidFile={self.tmp}/slurmctld.pid
SlurmdPidFile={self.tmp}/slurmd.pid
SlurmctldLogFile={self.tmp}/slurmctld.log
SlurmdLogFile={self.tmp}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=test Nodes={self.host} Default=YES MaxTime=INFINITE State=UP
{self.extra_conf()}""")
        os.makedirs(os.path.join(self.tmp, "state"))
        os.makedirs(os.path.join(self.tmp, "spool"))
        self.env = dict(os.environ, SLURM_CONF=conf)
        if subprocess.run("munge -n | unmunge", shell=True, capture_output=True).returncode != 0:
            os.makedirs("/run/munge", exist_ok=True)
            subprocess.run(["munged", "--force"], capture_output=True)
            self.started.append("munged")
        self.daemons = [subprocess.Popen(["slurmctld", "-D", "-i", "-f", conf], env=self.env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                        subprocess.Popen(["slurmd", "-D", "-N", self.host, "-f", conf], env=self.env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        deadline = time.time() + 60
        state = ""
        while time.time() < deadline:
            done = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
            state = done.stdout.strip()
            if state.startswith(self.ready_states):
                return
            time.sleep(1)
        self.tearDown()
        self.skipTest(f"Slurm did not come up here in 60 s (node state '{state}'): {self.log_tail()}")

    def log_tail(self):
        text = ""
        for name in ("slurmctld.log", "slurmd.log"):
            path = os.path.join(self.tmp, name)
            if os.path.exists(path):
                with open(path) as f:
                    text += f"{name}: " + " / ".join(f.read().splitlines()[-3:])
        return text

    def tearDown(self):
        for daemon in getattr(self, "daemons", []):
            daemon.terminate()
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()
        if "munged" in self.started:
            subprocess.run(["pkill", "-x", "munged"], capture_output=True)
        shutil.rmtree(getattr(self, "tmp", ""), ignore_errors=True)



class SlurmFleet(SlurmNode):
    """The recipe submitted with sbatch, its report read; node_check.sh as an operator runs it."""

    def test_the_recipe_runs_gpubench_on_every_node_and_reports_the_fleet(self):
        fleet = os.path.join(self.tmp, "fleet")
        env = dict(self.env, GPUBENCH=GPUBENCH, GPUBENCH_ROOT=ROOT, FLEET_DIR=fleet, FLEET_PRESET="quick")  # host rows
        done = subprocess.run(["sbatch", "--wait", "--nodes=1", f"--output={self.tmp}/job.out", SBATCH,
                               "--benchmark_filter=^PointerChaseCPU/", "--benchmark_min_time=0.05"],
                              env=env, capture_output=True, text=True, timeout=300, cwd=self.tmp)
        with open(os.path.join(self.tmp, "job.out")) as f:
            job = f.read()
        self.assertEqual(done.returncode, 0, done.stderr + job + self.log_tail())
        runs = glob.glob(os.path.join(fleet, "*.json"))
        self.assertEqual([os.path.basename(p) for p in runs], [f"{self.host}.json"], job)
        with open(runs[0]) as f:
            rows = json.load(f)["benchmarks"]
        self.assertTrue(rows and all(r["name"].startswith("PointerChaseCPU/") for r in rows))
        with open(os.path.join(fleet, "fleet.md")) as f:
            text = f.read()
        self.assertIn("1 node(s)", text)
        self.assertIn(f"| {self.host} | host |", text)
        self.assertIn("PointerChaseCPU/bytes:16384 |", text)

    def test_the_recipe_on_a_gpu_node_reads_its_runs_and_skips_its_cards(self):
        """A node of two H200s, as gpubench leaves it: <node>.json, <node>.card.json/.md and one card per GPU.
        The report must read the run and skip the cards (it stopped on them before: exit 2, no fleet.md)."""
        fleet = os.path.join(self.tmp, "fleet")
        env = dict(self.env, GPUBENCH=STANDIN, GPUBENCH_ROOT=ROOT, FLEET_DIR=fleet, STANDIN_RUN=TWO_H200,
                   FLEET_PRESET="check")
        done = subprocess.run(["sbatch", "--wait", "--nodes=1", f"--output={self.tmp}/job.out", SBATCH],
                              env=env, capture_output=True, text=True, timeout=300, cwd=self.tmp)
        with open(os.path.join(self.tmp, "job.out")) as f:
            job = f.read()
        self.assertEqual(done.returncode, 0, done.stderr + job + self.log_tail())
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(fleet, "*.json")))
        self.assertIn(f"{self.host}.card-gpu1.json", names, job)
        self.assertNotIn("fleet.py: exit", job)
        with open(os.path.join(fleet, "fleet.md")) as f:
            text = f.read()
        self.assertIn("1 node(s), 2 GPU(s)", text)
        self.assertIn(f"| {self.host} | 1 NVIDIA H200 |", text)

    def node_state(self):
        done = subprocess.run(["sinfo", "-h", "-n", self.host, "-o", "%T|%E"], env=self.env, capture_output=True,
                              text=True)
        return done.stdout.strip()

    def test_the_node_check_drains_an_abnormal_gpu_and_keeps_a_normal_one(self):
        """The check preset (a run of it on an H100), as node_check.sh runs it, and the same run with its DRAM read
        10% slower."""
        normal = CHECK_RUN
        slow = json.loads(archive.read(normal))
        for row in slow["benchmarks"]:
            if row["name"].startswith("Stream/read/") and "bytes_per_second" in row:
                row["bytes_per_second"] *= 0.9
        slow_path = os.path.join(self.tmp, "slow.json")
        with open(slow_path, "w") as f:
            json.dump(slow, f)
        check = os.path.join(ROOT, "analysis", "node_check.sh")
        kept = subprocess.run([check], env=dict(self.env, GPUBENCH=STANDIN, STANDIN_RUN=normal), capture_output=True,
                              text=True, timeout=120)
        self.assertEqual(kept.returncode, 0, kept.stdout + kept.stderr)
        self.assertIn("normal:", kept.stdout)
        self.assertTrue(self.node_state().startswith("idle"), self.node_state())
        drained = subprocess.run([check], env=dict(self.env, GPUBENCH=STANDIN, STANDIN_RUN=slow_path),
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(drained.returncode, 5, drained.stdout + drained.stderr)
        state = self.node_state()
        subprocess.run(["scontrol", "update", f"NodeName={self.host}", "State=RESUME"], env=self.env, capture_output=True)
        self.assertTrue(state.startswith("drain"), state)
        self.assertIn("gpubench: abnormal: ", state)
        self.assertIn("stream read (DRAM)", state)

    def test_a_configuration_error_never_drains(self):
        """A typo in a prolog (an unknown preset: gpubench exits 2) or GPUBENCH naming a folder is said, not a
        verdict about the GPU: the node stays idle."""
        check = os.path.join(ROOT, "analysis", "node_check.sh")
        for env, status in ((dict(self.env, GPUBENCH=STANDIN, STANDIN_RUN=CHECK_RUN, NODE_CHECK_PRESET="quik"), 2),
                            (dict(self.env, GPUBENCH=self.tmp), 2)):
            done = subprocess.run([check], env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, status, done.stdout + done.stderr)
            self.assertTrue(self.node_state().startswith("idle"), (done.stdout, self.node_state()))

    def test_the_recipe_says_why_when_gpubench_is_missing(self):
        fleet = os.path.join(self.tmp, "fleet")
        env = dict(self.env, GPUBENCH=os.path.join(self.tmp, "no-such-gpubench"), GPUBENCH_ROOT=self.tmp,
                   FLEET_DIR=fleet, PATH="/usr/sbin:/usr/bin:/sbin:/bin")
        subprocess.run(["sbatch", "--wait", "--nodes=1", f"--output={self.tmp}/job.out", SBATCH],
                       env=env, capture_output=True, text=True, timeout=300, cwd=self.tmp)
        with open(os.path.join(self.tmp, "job.out")) as f:
            job = f.read()
        self.assertIn("fleet.sbatch: gpubench not found", job)


if __name__ == "__main__":
    unittest.main()
