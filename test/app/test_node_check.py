#!/usr/bin/env python3
"""The node check in production (analysis/node_check.sh, analysis/prometheus.py), with the real parts:
- each mode's exit semantics (HealthCheckProgram, Prolog, node-problem-detector), with a stand-in gpubench that
  prints a given verdict line or hangs past every deadline;
- the deadline under a real slurmd: a HealthCheckProgram whose gpubench never ends is stopped inside Slurm's
  minute, the node drained as incomplete with that reason, and nothing left in its temporary folder;
- the Prometheus textfile of a committed two-H200 node check, parsed by the Prometheus client library's own parser
  and served by Debian's prometheus-node-exporter on loopback, read back from its /metrics.
Tests whose parts are not installed skip with the reason (CI installs them: .ci/run)."""
import glob
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import test_fleet  # noqa: E402  (its Slurm set-up; it takes the gpubench binary from argv)

NODE_CHECK = os.path.join(ROOT, "analysis", "node_check.sh")
PROMETHEUS = os.path.join(ROOT, "analysis", "prometheus.py")
CARD = os.path.join(ROOT, "analysis", "card.py")
TWO_H200 = test_fleet.TWO_H200

# A gpubench stand-in: STANDIN_LINE is printed as gpubench's last words and STANDIN_EXIT is its status, or with
# STANDIN_HANG it ignores SIGTERM and sleeps past any deadline; with STANDIN_WAIT it waits, and a SIGTERM ends it
# saying nothing.
STANDIN = """#!/usr/bin/env bash
echo "$@" > "${STANDIN_ARGS:-/dev/null}"
if [ -n "${STANDIN_HANG:-}" ]; then trap '' TERM; sleep 90; exit 0; fi
if [ -n "${STANDIN_WAIT:-}" ]; then trap 'exit 143' TERM; sleep 90 & wait; fi
echo "$STANDIN_LINE" >&2
exit "${STANDIN_EXIT:-0}"
"""


def prometheus_parser():
    """The Prometheus client library's text parser (Debian's python3-prometheus-client), or None."""
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")  # Debian's package, where this Python is not Debian's
        try:
            from prometheus_client.parser import text_string_to_metric_families
        except ImportError:
            return None
    return text_string_to_metric_families


class Modes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="node-check-")
        self.standin = os.path.join(self.tmp, "gpubench")
        with open(self.standin, "w") as f:
            f.write(STANDIN)
        os.chmod(self.standin, 0o755)
        self.scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(self.scratch)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, mode, line="", status=0, path=None, **env):
        environment = dict(os.environ, GPUBENCH=self.standin, NODE_CHECK_MODE=mode, STANDIN_LINE=line,
                           STANDIN_EXIT=str(status), TMPDIR=self.scratch, SLURMD_NODENAME="n7",
                           NODE_CHECK_EXPECT_GPUS="8", STANDIN_ARGS=os.path.join(self.tmp, "args"), **env)
        if path is not None:
            environment["PATH"] = path
        return subprocess.run(["bash", NODE_CHECK], capture_output=True, text=True, env=environment, timeout=120)

    NORMAL = "card.py --check: verdict normal, exit 0, keep: normal: 160 values within the H100 limits"
    ABNORMAL = "card.py --check: verdict abnormal, exit 5, drain: abnormal: 1 of 160 values outside: DRAM read"

    def test_health_exits_with_the_verdict_and_names_the_slurm_node(self):
        done = self.check("health", self.ABNORMAL, 5, NODE_CHECK_DRAIN="0")
        self.assertEqual(done.returncode, 5, done.stderr)
        self.assertIn("node_check.sh: n7: exit 5: abnormal: 1 of 160", done.stdout)
        with open(os.path.join(self.tmp, "args")) as f:
            args = f.read()
        self.assertIn("--gpubench_expect_gpus=8", args)
        self.assertIn("--gpubench_deadline=40", args)

    def test_a_drain_without_scontrol_is_said(self):
        bare = os.path.join(self.tmp, "bin")
        os.makedirs(bare)
        for tool in ("bash", "mktemp", "timeout", "grep", "sed", "rm", "tail", "dirname", "readlink", "hostname",
                     "cat", "head", "kill"):
            found = shutil.which(tool)
            if found:
                os.symlink(found, os.path.join(bare, tool))
        done = self.check("health", self.ABNORMAL, 5, path=bare)
        self.assertEqual(done.returncode, 5, done.stderr)
        self.assertIn("scontrol is not on PATH: n7 is NOT drained", done.stderr)

    def test_prolog_fails_the_job_only_for_a_verdict_that_drains(self):
        self.assertEqual(self.check("prolog", self.NORMAL, 0).returncode, 0)
        self.assertEqual(self.check("prolog", self.ABNORMAL, 5, NODE_CHECK_DRAIN="0").returncode, 1)
        keep = self.check("prolog", "card.py --check: verdict no_limits, exit 7, keep: no limits: ...", 7)
        self.assertEqual(keep.returncode, 0, keep.stdout)  # 7 would drain the node in a Prolog
        broken = self.check("prolog", "gpubench: unknown flag '--x'", 2)
        self.assertEqual(broken.returncode, 0, broken.stdout)  # a configuration error drains nothing
        self.assertIn("no verdict", broken.stdout)

    def test_npd_says_one_line_and_exits_ok_problem_or_unknown(self):
        for line, status, expected in ((self.NORMAL, 0, 0), (self.ABNORMAL, 5, 1), ("gpubench: no GPU", 1, 2)):
            done = self.check("npd", line, status, NODE_CHECK_DRAIN="0")
            self.assertEqual(done.returncode, expected, done.stdout)
            self.assertEqual(len(done.stdout.strip().splitlines()), 1, done.stdout)

    def test_missing_gpus_drain(self):
        line = "gpubench: verdict missing, exit 10, drain: missing: CUDA opens 7 where 8 are expected"
        done = self.check("npd", line, 10, NODE_CHECK_DRAIN="0")
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn("missing: CUDA opens 7 where 8 are expected", done.stdout)

    def test_a_gpubench_past_its_deadline_is_stopped_incomplete_and_leaves_nothing(self):
        started = time.time()
        done = self.check("health", status=0, STANDIN_HANG="1", NODE_CHECK_DEADLINE="5", NODE_CHECK_DRAIN="0")
        took = time.time() - started
        self.assertEqual(done.returncode, 6, done.stdout + done.stderr)  # incomplete
        self.assertIn("incomplete: the check did not end within 15 s and was stopped", done.stdout)
        self.assertLess(took, 25)
        self.assertEqual(os.listdir(self.scratch), [])

    def test_the_check_is_kept_in_the_history(self):
        store = os.path.join(self.tmp, "history.sqlite")
        env = dict(os.environ, GPUBENCH=test_fleet.STANDIN, STANDIN_RUN=test_fleet.CHECK_RUN, NODE_CHECK_DRAIN="0",
                   NODE_CHECK_HISTORY=store, TMPDIR=self.scratch, SLURMD_NODENAME="n7", NODE_CHECK_EXPECT_GPUS="1")
        done = subprocess.run(["bash", NODE_CHECK], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("node_check.sh: history: 1 GPU run(s) added to", done.stderr)
        import sqlite3
        self.assertEqual(sqlite3.connect(store).execute("SELECT COUNT(*) FROM runs").fetchone()[0], 1)

    def test_the_check_writes_the_textfile(self):
        textdir = os.path.join(self.tmp, "textfile")
        os.makedirs(textdir)
        env = dict(os.environ, GPUBENCH=test_fleet.STANDIN, STANDIN_RUN=test_fleet.CHECK_RUN, NODE_CHECK_DRAIN="0",
                   NODE_CHECK_TEXTFILE_DIR=textdir, TMPDIR=self.scratch, SLURMD_NODENAME="n7",
                   NODE_CHECK_EXPECT_GPUS="1")
        done = subprocess.run(["bash", NODE_CHECK], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(os.listdir(textdir), ["gpubench.prom"])
        with open(os.path.join(textdir, "gpubench.prom")) as f:
            text = f.read()
        self.assertIn('gpubench_node_verdict{Hostname="n7",verdict="normal"} 1', text)
        self.assertRegex(text, r'gpubench_gpu_verdict\{Hostname="n7",gpu="0",UUID="GPU-[0-9a-f-]+",')
        self.assertEqual(os.listdir(self.scratch), [])  # the run, its card and log went with the folder

    def test_bad_settings_are_said(self):
        done = self.check("health", NODE_CHECK_DEADLINE="soon")
        self.assertEqual(done.returncode, 2)
        self.assertIn("NODE_CHECK_DEADLINE=soon", done.stderr)
        self.assertEqual(self.check("sometimes").returncode, 2)

    def test_a_bad_setting_never_drains_in_any_mode(self):
        # A Prolog's non-zero exit drains: a configuration error exits 0 there, 2 (unknown) for npd, 2 for health.
        for mode, expected in (("health", 2), ("prolog", 0), ("npd", 2)):
            for env in ({"NODE_CHECK_DEADLINE": "abc"}, {"NODE_CHECK_DEADLINE": "3"},
                        {"NODE_CHECK_DIR": os.path.join(self.tmp, "no-such-folder")}):
                done = self.check(mode, self.NORMAL, 0, **env)
                self.assertEqual(done.returncode, expected, (mode, env, done.stdout, done.stderr))
                value = next(iter(env.values()))
                self.assertIn(f"={value}: ", done.stderr)
        past_slurm = self.check("health", self.NORMAL, 0, NODE_CHECK_DEADLINE="100")
        self.assertEqual(past_slurm.returncode, 2)
        self.assertIn("from 5 to 50", past_slurm.stderr)
        self.assertEqual(self.check("prolog", self.NORMAL, 0, NODE_CHECK_DEADLINE="100").returncode, 0)

    def test_no_verdict_is_never_normal(self):
        done = self.check("health", "", 0)  # a gpubench that exits 0 and says nothing
        self.assertEqual(done.returncode, 2, done.stdout)
        self.assertIn("no verdict: gpubench printed nothing (exit 0)", done.stdout)

    def test_busy_drains_only_before_a_job(self):
        line = "gpubench: verdict busy, exit 9, drain: busy: other processes used the GPU (at the start 1 (pid 9))"
        prolog = self.check("prolog", line, 9, NODE_CHECK_DRAIN="0")
        self.assertEqual(prolog.returncode, 1, prolog.stdout)
        npd = self.check("npd", line, 9, NODE_CHECK_DRAIN="0")
        self.assertEqual(npd.returncode, 0, npd.stdout)  # a job's own process is no problem
        fake = os.path.join(self.tmp, "bin")  # an scontrol that says what it was asked
        os.makedirs(fake)
        with open(os.path.join(fake, "scontrol"), "w") as f:
            f.write(f'#!/bin/sh\necho "$@" >> {self.tmp}/scontrol.log\n')
        os.chmod(os.path.join(fake, "scontrol"), 0o755)
        for mode, drained in (("health", False), ("prolog", True)):
            done = self.check(mode, line, 9, path=fake + ":" + os.environ["PATH"])
            self.assertEqual(os.path.exists(os.path.join(self.tmp, "scontrol.log")), drained, (mode, done.stdout))
        self.assertEqual(done.returncode, 1)

    def test_a_check_stopped_by_sigterm_says_so(self):
        environment = dict(os.environ, GPUBENCH=self.standin, NODE_CHECK_MODE="health", STANDIN_WAIT="1",
                           TMPDIR=self.scratch, SLURMD_NODENAME="n7", NODE_CHECK_EXPECT_GPUS="8", NODE_CHECK_DRAIN="0")
        check = subprocess.Popen(["bash", NODE_CHECK], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=environment)
        time.sleep(1)
        check.send_signal(signal.SIGTERM)
        out, err = check.communicate(timeout=60)
        self.assertEqual(check.returncode, 2, out + err)
        self.assertIn("no verdict: the check was stopped by SIGTERM before gpubench gave its verdict", out)


class Textfile(unittest.TestCase):
    """The committed two-H200 node check as node_exporter's textfile."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prom-")
        prefix = os.path.join(cls.tmp, "node.card")
        made = subprocess.run([sys.executable, CARD, TWO_H200, "--check", "--out", prefix], capture_output=True,
                              text=True)
        cls.status = made.returncode
        cls.textdir = os.path.join(cls.tmp, "textfile")
        os.makedirs(cls.textdir)
        cls.prom = os.path.join(cls.textdir, "gpubench.prom")
        cls.done = subprocess.run([sys.executable, PROMETHEUS, "--card", prefix + ".json", "--run", TWO_H200,
                                   "--node", "n7", "--duration", "33.2", "--out", cls.prom],
                                  capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_textfile_is_written_whole_and_parses(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr)
        self.assertEqual(sorted(os.listdir(self.textdir)), ["gpubench.prom"])  # no partial file left
        parse = prometheus_parser()
        if parse is None:
            self.skipTest("python3-prometheus-client is not installed")
        with open(self.prom) as f:
            families = {family.name: family for family in parse(f.read())}
        verdicts = families["gpubench_gpu_verdict"].samples
        self.assertEqual(len(verdicts), 2)
        for sample in verdicts:
            self.assertEqual(sample.labels["Hostname"], "n7")
            self.assertTrue(sample.labels["UUID"].startswith("GPU-"))
            self.assertEqual(sample.labels["modelName"], "NVIDIA H200")
            self.assertIn(sample.labels["verdict"], ("normal", "abnormal", "no_limits"))
        links = families["gpubench_link_one_way_bytes_per_second"].samples
        self.assertEqual({(s.labels["from_gpu"], s.labels["to_gpu"]) for s in links}, {("0", "1"), ("1", "0")})
        self.assertTrue(all(3e11 < s.value < 5e11 for s in links))  # NVLink 4 one way, about 396 GB/s
        self.assertGreater(len(families["gpubench_gpu_value"].samples), 100)
        self.assertEqual(families["gpubench_check_duration_seconds"].samples[0].value, 33.2)
        self.assertEqual(families["gpubench_node_verdict_exit"].samples[0].value, self.status)

    def test_node_exporter_serves_it(self):
        exporter = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
        if exporter is None:
            self.skipTest("prometheus-node-exporter is not installed (Debian: apt-get install prometheus-node-exporter)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        served = subprocess.Popen([exporter, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
                                   "--collector.textfile", f"--collector.textfile.directory={self.textdir}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            text = ""
            for _ in range(100):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as response:
                        text = response.read().decode()
                    break
                except OSError:
                    time.sleep(0.1)
        finally:
            served.terminate()
            served.wait(timeout=10)
        lines = text.splitlines()
        self.assertIn("node_textfile_scrape_error 0", lines, "node_exporter could not read the textfile")
        self.assertEqual(sum(line.startswith("gpubench_gpu_verdict{") for line in lines), 2)
        self.assertTrue(any(line.startswith('gpubench_node_verdict_exit{Hostname="n7"}') for line in lines))

    def test_a_missing_gpu_writes_the_node_verdict_without_a_card(self):
        out = os.path.join(self.tmp, "missing.prom")
        done = subprocess.run([sys.executable, PROMETHEUS, "--verdict", "missing", "--verdict-exit", "10", "--node",
                               "n7", "--out", out], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out) as f:
            text = f.read()
        self.assertIn('gpubench_node_verdict{Hostname="n7",verdict="missing"} 1', text)
        self.assertIn('gpubench_node_verdict_exit{Hostname="n7"} 10', text)


class SlurmHealthCheck(test_fleet.SlurmNode):
    """slurmd runs node_check.sh as its HealthCheckProgram with a gpubench that never ends: the check stops it
    inside Slurm's 60 s, drains the node as incomplete with the reason, and removes its temporary folder."""
    ready_states = ("idle", "drain", "mix")

    def extra_conf(self):
        self.scratch = os.path.join(self.tmp, "scratch")
        os.makedirs(self.scratch)
        standin = os.path.join(self.tmp, "gpubench-standin")
        with open(standin, "w") as f:
            f.write(STANDIN)
        wrapper = os.path.join(self.tmp, "health-check")
        with open(wrapper, "w") as f:
            f.write(f"""#!/usr/bin/env bash
export GPUBENCH={standin} STANDIN_HANG=1 NODE_CHECK_DEADLINE=20 TMPDIR={self.scratch} SLURM_CONF={self.tmp}/slurm.conf
export PATH={os.path.dirname(shutil.which("scontrol") or "/usr/bin")}:/usr/bin:/bin
exec bash {NODE_CHECK} > {self.tmp}/health-check.out 2>&1
""")
        for path in (standin, wrapper):
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return f"HealthCheckProgram={wrapper}\nHealthCheckInterval=600\n"

    def test_the_check_past_its_deadline_drains_incomplete_inside_the_minute(self):
        started = time.time()
        reason = ""
        while time.time() - started < 80:
            done = subprocess.run(["sinfo", "-h", "-N", "-o", "%T|%E"], env=self.env, capture_output=True, text=True)
            state, _, reason = done.stdout.strip().partition("|")
            if state.startswith("drain") and "gpubench" in reason:
                break
            time.sleep(1)
        out = ""
        if os.path.exists(os.path.join(self.tmp, "health-check.out")):
            with open(os.path.join(self.tmp, "health-check.out")) as f:
                out = f.read()
        self.assertIn("gpubench: incomplete: the check did not end within 30 s", reason, out + self.log_tail())
        self.assertNotIn("killed", self.log_tail().lower())
        time.sleep(1)
        self.assertEqual(glob.glob(os.path.join(self.scratch, "*")), [])



if __name__ == "__main__":
    unittest.main()
