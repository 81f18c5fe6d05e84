"""The verdict's health layer (analysis/verdict/health.py) on records as gpubench writes them: a healthy H100's reads
normal with no finding; each planted fault is named with its code and action, the real reading beside it; warnings
ride on a normal verdict; a node's boards on different VBIOS are said; the Prometheus textfile carries the findings."""
import copy
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, ROOT)
from analysis.verdict import health, judge  # noqa: E402
from analysis import prometheus  # noqa: E402

READING = {"unix_seconds": 1000.0, "pci_bus_id": "00000000:18:00.0", "ecc_mode": True, "ecc_uncorrected_volatile": 0,
           "ecc_uncorrected_aggregate": 0, "ecc_corrected_volatile": 0, "ecc_corrected_aggregate": 3,
           "retirement_pending": False, "remapped_rows_correctable": 0, "remapped_rows_uncorrectable": 0,
           "remap_pending": False, "remap_failed": False, "remap_banks_none_left": 0, "nvlinks_read": 18,
           "nvlinks_active": 18, "nvlink_crc_by_link": [0] * 18, "nvlink_crc_flit": 0, "nvlink_crc_data": 0, "nvlink_replay": 0, "nvlink_recovery": 0,
           "pcie_gen": 5, "pcie_width": 16, "pcie_gen_under_load": 5, "pcie_width_under_load": 16, "pcie_gen_max": 5, "pcie_width_max": 16, "pcie_replays": 0,
           "clock_event_names": ["sw_power_cap"], "persistence_mode": True, "driver": "580.95.05",
           "vbios": "96.00.99.00.01"}
H100 = "NVIDIA H100 80GB HBM3"


def record(end=None, start=None, **more):
    made = {"start": dict(READING, **(start or {})), "end": dict(READING, unix_seconds=1008.0, **(end or {})),
            "xid_during": [], "kernel_log_xids": []}
    return made | more


def planted(end, spec):
    real = record()
    made = record(end=end, start=end if not spec.startswith("end.") else None)
    return made | {"planted": spec, "real": real}


def codes(found):
    return sorted((f["code"], f["action"]) for f in found)


class HealthFindings(unittest.TestCase):
    def test_a_healthy_board_has_no_finding(self):
        self.assertEqual(health.findings({"gpu_name": H100, "gpubench_health": record()}), [])

    def test_each_fault_is_named_with_its_action(self):
        cases = [({"remap_pending": True}, "remap_pending=true", [("row_remap_pending", "drain")]),
                 ({"remap_failed": True}, "remap_failed=true", [("row_remap_failed", "drain")]),
                 ({"retirement_pending": True}, "retirement_pending=true", [("page_retirement_pending", "drain")]),
                 ({"ecc_uncorrected_volatile": 2}, "ecc_uncorrected_volatile=2", [("ecc_uncorrectable", "drain")]),
                 ({"nvlinks_active": 17}, "nvlinks_active=17", [("nvlink_inactive", "drain")]),
                 ({"nvlink_crc_by_link": [0] * 17 + [900]}, "end.nvlink_crc_by_link=...",
                  [("nvlink_crc_errors", "drain")]),
                 ({"nvlink_replay": 3}, "end.nvlink_replay=3", [("nvlink_replays", "warn")]),
                 ({"pcie_replays": 5}, "end.pcie_replays=5", [("pcie_replays", "warn")]),
                 ({"pcie_gen_under_load": 3}, "end.pcie_gen_under_load=3", [("pcie_link_degraded", "drain")]),
                 ({"pcie_width_under_load": 8}, "end.pcie_width_under_load=8", [("pcie_link_degraded", "drain")]),
                 ({"ecc_uncorrected_aggregate": 1}, "end.ecc_uncorrected_aggregate=1",
                  [("ecc_uncorrectable_during_run", "drain")]),
                 ({"clock_event_names": ["hw_slowdown"]}, "clock_event_names=hw_slowdown",
                  [("clocks_held_by_hardware", "warn")]),
                 ({"persistence_mode": False}, "persistence_mode=false", [("persistence_off", "warn")]),
                 ({"remap_banks_none_left": 1}, "remap_banks_none_left=1", [("row_remap_bank_exhausted", "warn")]),
                 ({"fabric_state": "in_progress"}, "fabric_state=in_progress", [("fabric_not_ready", "drain")])]
        for end, spec, wanted in cases:
            with self.subTest(spec=spec):
                found = health.findings({"gpu_name": H100, "gpubench_health": planted(end, spec)})
                self.assertEqual(codes(found), wanted)
                self.assertTrue(all(f["planted"] == spec for f in found))
        xid = record(xid_during=[79], planted="xid=79", real=record())
        self.assertEqual(codes(health.findings({"gpu_name": H100, "gpubench_health": xid})),
                         [("xid_during_run", "drain")])
        logged = record(kernel_log_xids=[{"xid": 79, "line": "NVRM: Xid (PCI:0000:18:00): 79"}, {"xid": 31}])
        self.assertEqual(codes(health.findings({"gpu_name": H100, "gpubench_health": logged})),
                         [("xid_in_kernel_log", "warn")])

    def test_crc_counts_of_healthy_links_are_no_finding(self):
        # what a healthy H200's links counted through an 8 s check (x4h): 457 over 18 links, none at 100/s
        board = record(end={"nvlink_crc_by_link": [25] * 18 + [7][:0], "nvlink_crc_data": 457})
        self.assertEqual(health.findings({"gpu_name": H100, "gpubench_health": board}), [])

    def test_a_gpu_alone_with_its_links_down_is_not_drained_but_one_beside_linked_peers_is(self):
        # a lent one-GPU VM's H100 (h1h): its board's 18 links read inactive, no peer to train with
        alone = {"gpu_name": H100, "gpubench_health": record(end={"nvlinks_active": 0})}
        self.assertEqual(health.findings(alone), [])
        self.assertEqual(health.node_findings([(0, alone)]), [])
        linked = {"gpu_name": H100, "gpubench_health": record()}
        self.assertEqual(codes(health.node_findings([(0, linked), (1, alone)])), [("nvlink_inactive", "drain")])

    def test_an_idle_link_below_its_generation_is_not_judged(self):
        # idle, a link drops its generation to save power: only the reading under load is judged
        idle = record(end={"pcie_gen": 1, "pcie_gen_under_load": None, "pcie_width_under_load": None})
        self.assertEqual(health.findings({"gpu_name": H100, "gpubench_health": idle}), [])

    def test_a_board_whose_links_are_not_known_is_not_judged_on_them(self):
        board = record(end={"nvlinks_active": 0, "nvlinks_read": 0})
        self.assertEqual(health.findings({"gpu_name": "NVIDIA H100 PCIe", "gpubench_health": board}), [])


class HealthInTheVerdict(unittest.TestCase):
    RESULT = {"checks": [], "layers": [{"name": "sm_90", "layer": "architecture"}], "missing": [], "other_method": []}

    def test_a_drain_finding_makes_the_gpu_abnormal_and_the_line_names_it_with_the_real_reading(self):
        found = health.findings({"gpu_name": H100, "gpubench_health": planted({"remap_pending": True},
                                                                                "remap_pending=true")})
        status, line = judge.judge(self.RESULT, health=found)
        self.assertEqual(status, judge.ABNORMAL)
        self.assertIn("a row remapping is pending (a GPU reset applies it) (row_remap_pending) [planted; real reading False]",
                      line)

    def test_a_warning_rides_on_a_normal_verdict(self):
        found = health.findings({"gpu_name": H100, "gpubench_health": record(end={"persistence_mode": False})})
        verdict = judge.decide(self.RESULT, health=found)
        self.assertEqual(verdict["warnings"][0]["code"], "persistence_off")
        self.assertNotEqual(verdict["status"], judge.ABNORMAL)

    def test_a_nodes_boards_on_different_vbios_are_said(self):
        contexts = [(0, {"gpu_name": H100, "gpubench_health": record()}),
                    (1, {"gpu_name": H100, "gpubench_health": record(end={"vbios": "96.00.74.00.01"})})]
        found = health.node_findings(contexts)
        self.assertEqual(codes(found), [("vbios_mismatch", "warn")])
        self.assertIn("GPU 1", found[0]["text"])

    def test_the_textfile_carries_each_finding(self):
        card = {"device": {"uuid": "GPU-a", "name": H100}, "verdict": {
            "name": "abnormal", "exit": judge.ABNORMAL,
            "reasons": [{"code": "row_remap_pending", "action": "drain", "text": "x"}],
            "warnings": [{"code": "persistence_off", "action": "warn", "text": "y"}]}}
        text = "\n".join(prometheus.lines_of(copy.deepcopy(card), "node-a", 8.0, 1e9))
        self.assertIn('gpubench_gpu_health_finding{Hostname="node-a",gpu="0",UUID="GPU-a",modelName="NVIDIA H100 80GB '
                      'HBM3",code="row_remap_pending",action="drain"} 1', text)
        self.assertIn('code="persistence_off",action="warn"} 1', text)


if __name__ == "__main__":
    unittest.main()
