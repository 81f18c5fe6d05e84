#!/usr/bin/env python3
"""The quick preset on every chip of the table (common/chip_table.cpp), without those GPUs:
`gpubench --gpubench_plan=CHIP` registers the preset for the chip's facts and says, per row, why the chip
could not run it or that it would. Checked per chip: the chase and bandwidth sets bracket its L1, L2 and
DRAM edges (and each carveout's L1), SM indices stay below its SM count, every row its architecture lacks
skips with a reason naming it, and the card's rules run on a synthetic run of it.
`test_chip_plan.py GPUBENCH --table` prints the table docs/any-gpu.md shows."""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, ROOT)
from analysis.cards import card  # noqa: E402
from analysis.model import report as report_model  # noqa: E402

GPUBENCH = sys.argv.pop(1) if len(sys.argv) > 1 else "gpubench"
TABLE = "--table" in sys.argv
if TABLE:
    sys.argv.remove("--table")
H100_SUITE = os.path.join(HERE, "..", "fixtures", "h100-suite.json")
KIB, MIB = 1024, 1024 * 1024

# Rows that need an architecture (first sm that has them, or the only one), by registered-name prefix.


def chips():
    done = subprocess.run([GPUBENCH, "--gpubench_plan=list"], capture_output=True, text=True, timeout=60, check=True)
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def plan(chip, preset="quick"):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "plan.json")
        done = subprocess.run([GPUBENCH, f"--gpubench_plan={chip}", f"--gpubench_preset={preset}",
                               f"--benchmark_out={out}"], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"{chip}: exit {done.returncode}: {done.stderr[-400:]}")
        with open(out) as f:
            return json.load(f)


def plan_with_peers(chip, peers):
    """A node child's check plan on GPU 0 with the peers whose links it measures (--gpubench_peers)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "plan.json")
        subprocess.run([GPUBENCH, f"--gpubench_plan={chip}", "--gpubench_preset=check", "--gpubench_device=0",
                        f"--gpubench_peers={peers}", f"--benchmark_out={out}"], capture_output=True, text=True,
                       timeout=120, check=True)
        with open(out) as f:
            return json.load(f)


def rows_of(run):
    """(registered name, args, reason or None when planned) per row."""
    rows = []
    for raw in run["benchmarks"]:
        row = report_model.Row(raw)
        reason = row.skipped or row.error
        if reason and reason.startswith("planned"):
            reason = None
        rows.append((row.registered, row.args, reason))
    return rows


def requirements_of(run):
    """{registered name: rule} of the rows that need something of the architecture."""
    return {report_model.Row(raw).registered: raw["gpubench"]["requirement"] for raw in run["benchmarks"]
            if "requirement" in raw.get("gpubench", {})}


def admits(rule, sm):
    """Whether a requirement rule ("sm>=90", "sm==90", "major!=9", joined by ",") admits a chip of sm_<sm>."""
    for clause in rule.split(","):
        subject, relation, value = re.fullmatch(r"(sm|major)(>=|==|!=)(\d+)", clause).groups()
        actual = sm if subject == "sm" else sm // 10
        if not {">=": actual >= int(value), "==": actual == int(value), "!=": actual != int(value)}[relation]:
            return False
    return True


def facts(run):
    c = run["context"]
    major, minor = (int(x) for x in c["gpu_compute_capability"].split("."))
    return {"sm": major * 10 + minor, "sms": int(c["gpu_sm_count"]), "l2": int(c["gpu_l2_bytes"]),
            "l1": int(c["gpu_l1_shared_bytes_per_sm"]), "shared": int(c["gpu_shared_memory_per_sm_bytes"])}


def bracket(sizes, edge):
    """The largest size below the edge and the smallest above it (None where there is none)."""
    below = [s for s in sizes if s < edge]
    above = [s for s in sizes if s > edge]
    return (max(below) if below else None, min(above) if above else None)


def sizes(rows, registered, arg, scale=1, **fixed):
    return sorted({int(a[arg]) * scale for r, a, why in rows
                   if r == registered and why is None and arg in a and all(a.get(k) == v for k, v in fixed.items())})


def edges(rows, f):
    """{edge name: (edge bytes, below, above)} for the chase and bandwidth sweeps."""
    direct = sizes(rows, "PointerChase/direct", "bytes")
    per_sm = sizes(rows, "CacheBandwidth/read", "KiB_per_sm", KIB)
    found = {"L1 (chase)": (f["l1"] * 3 // 4, *bracket(direct, f["l1"] * 3 // 4)),
             "half L2 (chase)": (f["l2"] // 2, *bracket(direct, f["l2"] // 2)),
             "L2 (chase)": (f["l2"] * 9 // 10, *bracket(direct, f["l2"] * 9 // 10)),
             "DRAM (chase)": (4 * f["l2"], *bracket(direct, 4 * f["l2"] - 1)),
             "L1 (bandwidth, per SM)": (f["l1"] * 3 // 4, *bracket(per_sm, f["l1"] * 3 // 4)),
             "L2 (bandwidth, per SM)": (f["l2"] // f["sms"], *bracket(per_sm, f["l2"] // f["sms"]))}
    for percent in (0, 50, 100):
        capacity = f["l1"] - min(f["shared"] * percent // 100, f["l1"])
        carve = sizes(rows, "PointerChase/carveout", "bytes", carveout=percent)
        found[f"L1 at carveout {percent}%"] = (capacity, min(carve) if carve else None, max(carve) if carve else None)
    return found




def synthetic_run(run):
    """The plan with counters: every planned row that the committed H100 suite has by name takes that row's
    counters (the rules' arithmetic runs on real numbers); skipped rows stay skipped with their reason."""
    with open(H100_SUITE) as f:
        measured = {b["name"]: b for b in json.load(f)["benchmarks"]}
    benchmarks = []
    for raw in run["benchmarks"]:
        reason = raw.get("skip_message") or raw.get("error_message", "")
        if reason.startswith("skipped: "):
            reason = reason[len("skipped: "):]
        if "planned" in reason:
            if raw["name"] in measured:
                benchmarks.append(measured[raw["name"]])
            continue
        benchmarks.append({"name": raw["name"], "run_name": raw.get("run_name", raw["name"]), "run_type": "iteration",
                           "skipped": True, "skip_message": reason})
    return {"context": dict(run["context"], gpu_name=run["context"]["gpu_name"].split(" (planned")[0]),
            "benchmarks": benchmarks}


class ChipPlans(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plans = {chip: plan(chip) for chip in chips()}

    def test_a_node_childs_links_come_last_one_peer_after_another(self):
        """Each peer's Peer rows together, after every other family's (a node's turns on a link follow one another,
        app/node_run.cpp), and each peer's 1 GiB copies and 4 MiB chase in the check."""
        names = [raw["name"] for raw in plan_with_peers("h200", "1,3")["benchmarks"] if raw["name"].startswith("Peer/")]
        peers = [re.search(r"/(?:peer|memory_on):(\d+)/", n).group(1) for n in names]
        self.assertEqual(peers, ["1"] * 4 + ["3"] * 4, names)
        self.assertEqual(sum("MiB:1024/" in n for n in names), 6)
        self.assertEqual(sum("Peer/chase/memory_on:" in n and "bytes:4194304/" in n for n in names), 2)
        rows = plan_with_peers("h200", "1,3")["benchmarks"]
        last_other = max(i for i, raw in enumerate(rows) if not raw["name"].startswith("Peer/"))
        self.assertLess(last_other, min(i for i, raw in enumerate(rows) if raw["name"].startswith("Peer/")))

    def test_the_table_covers_sm_70_to_sm_120(self):
        sms = {facts(run)["sm"] for run in self.plans.values()}
        self.assertTrue({70, 75, 80, 86, 89, 90, 100, 120} <= sms, sms)

    def test_sets_bracket_every_capacity_edge(self):
        for chip, run in self.plans.items():
            for name, (edge, below, above) in edges(rows_of(run), facts(run)).items():
                with self.subTest(chip=chip, edge=name):
                    if name.startswith("L1 at carveout"):
                        self.assertLessEqual(below, edge * 3 // 4 + 4 * KIB)  # smallest set well inside
                        self.assertGreaterEqual(above, edge)  # largest at or past it
                    else:
                        self.assertIsNotNone(below, f"nothing below {edge}")
                        self.assertIsNotNone(above, f"nothing above {edge}")

    def test_sm_sweeps_stay_inside_the_sm_count(self):
        for chip in ("t4", "a100-sxm4", "h100-pcie", "rtx5090"):
            run = plan(chip, "full")
            f = facts(run)
            swept = [int(a["sm"]) for _, a, why in rows_of(run) if "sm" in a and why is None]
            with self.subTest(chip=chip):
                self.assertTrue(swept)
                self.assertLess(max(swept), f["sms"])
                self.assertGreater(max(swept), f["sms"] - 8)  # the sweep reaches the last SMs

    def test_rows_the_architecture_lacks_skip_naming_it(self):
        for chip, run in self.plans.items():
            sm = facts(run)["sm"]
            needs = requirements_of(run)
            for registered, args, why in rows_of(run):
                with self.subTest(chip=chip, row=registered):
                    # The binary's decision on this chip is what its emitted rule says.
                    self.assertEqual(why is not None, registered in needs and not admits(needs[registered], sm),
                                     f"rule {needs.get(registered)!r}, reason {why!r}")
                    if why is not None and not why.startswith("Hopper"):
                        self.assertIn(f"this GPU is sm_{sm}", why)
                    if why is not None:  # nothing else skips in a plan: the architecture, by name
                        self.assertTrue(f"sm_{sm}" in why or (sm == 90 and why.startswith("Hopper")), why)
            self.assertGreater(sum(1 for _, _, why in rows_of(run) if why is None), 150, chip)
            self.assertGreater(len(needs), 30, chip)  # the rows' own requirements, as the binary wrote them

    def test_string_axes_land_in_the_rows_arguments(self):
        """A tensor-core row's precision (and wgmma's A operand source) is data in its arguments: no reader
        parses it out of the name."""
        run = self.plans["h100-sxm5"]
        tensor = [raw for raw in run["benchmarks"] if raw["name"].startswith("TensorCore/")]
        self.assertTrue(tensor)
        for raw in tensor:
            args = raw["gpubench"]["args"]
            self.assertIn(args["precision"], raw["name"], raw["name"])
            if "wgmma" in raw["name"]:
                self.assertEqual(args["a_from"], "registers" if "_rs/" in raw["name"] else "shared memory")

    def test_card_rules_run_on_a_synthetic_run_of_each_chip(self):
        for chip, run in self.plans.items():
            with self.subTest(chip=chip):
                synthetic = synthetic_run(run)
                report = report_model.Report(synthetic["context"],
                                             [report_model.Row(raw) for raw in synthetic["benchmarks"]])
                built = card.Card(report).build()
                values = {v["key"]: v for v in built.values}
                self.assertTrue(values)
                if facts(run)["sm"] < 90:
                    clusters = [v for v in values.values() if v["key"].startswith("memory.cluster.")]
                    self.assertTrue(clusters)
                    for v in clusters:
                        self.assertIn("needs sm_90", v.get("text") or "", v["key"])
                markdown = built.to_markdown()
                self.assertIn(run["context"]["gpu_name"].split(" (planned")[0], markdown)


def table():
    lines = ["| chip | sm | rows planned | edges bracketed (below / above, KiB) | rows skipped, and why |",
             "|---|---|---:|---|---|"]
    for chip in chips():
        run = plan(chip)
        f = facts(run)
        rows = rows_of(run)
        found = edges(rows, f)
        shown = []
        for name in ("L1 (chase)", "half L2 (chase)", "L2 (chase)", "DRAM (chase)"):
            edge, below, above = found[name]
            shown.append(f"{name.split(' ')[0] if name != 'half L2 (chase)' else 'L2/2'} {edge // KIB}: "
                         f"{below // KIB} / {above // KIB}")
        skipped = collections.Counter(why.split(";")[0] for _, _, why in rows if why)
        why = "; ".join(f"{n} x {text}" for text, n in sorted(skipped.items(), key=lambda kv: -kv[1])) or "none"
        lines.append(f"| {run['context']['gpu_name'].split(' (planned')[0]} | {f['sm']} | "
                     f"{sum(1 for _, _, w in rows if w is None)} | {'; '.join(shown)} | {why} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if TABLE:
        print(table())
    else:
        unittest.main()
