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
TWO_H200 = os.path.join(ROOT, "docs", "results", "2026-11-22-h200x2-all", "suite-all.json")
GPUBENCH = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else shutil.which("gpubench")


def report(paths, *flags):
    return subprocess.run([sys.executable, FLEET, *paths, *flags], capture_output=True, text=True, timeout=120)


class FleetReport(unittest.TestCase):
    def test_the_two_h200_host_reads_as_one_node_of_two_gpus(self):
        done = report([TWO_H200], "--check")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = [line for line in done.stdout.splitlines() if line.startswith("| vm |")]
        self.assertEqual(len(rows), 2, done.stdout)
        self.assertIn("None flagged", done.stdout)

    def test_a_planted_slow_gpu_is_flagged_against_the_median_and_the_range(self):
        with open(TWO_H200) as f:
            run = json.load(f)
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
        self.assertTrue(all(line.startswith("- node-2 GPU 1: ") for line in flagged), flagged)  # no one else
        self.assertTrue(flagged[0].startswith("- node-2 GPU 1: DRAM read -20%"), flagged)
        self.assertIn("from the fleet's median", flagged[0])
        self.assertIn("range of the SKU", flagged[0])


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


class SlurmFleet(unittest.TestCase):
    """slurmctld + slurmd on this machine, the recipe submitted with sbatch, its report read."""

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
""")
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
            if state.startswith("idle"):
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

    def test_the_recipe_runs_gpubench_on_every_node_and_reports_the_fleet(self):
        fleet = os.path.join(self.tmp, "fleet")
        env = dict(self.env, GPUBENCH=GPUBENCH, GPUBENCH_ROOT=ROOT, FLEET_DIR=fleet)
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


if __name__ == "__main__":
    unittest.main()
