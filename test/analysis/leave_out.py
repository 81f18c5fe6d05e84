"""Limits made without the runs of the boards under test (leave one board out): a run is never judged by limits made
from itself. The architecture's limits are made again by make_ranges from the calibration runs the shipped table
was made from (its "made" source: docs/results/2026-11-25-verdicts, 2026-11-25-checks, 2026-11-26-verdicts), less
every run of those boards; its link limits from the node runs of the 4-H200 hosts of 2026-11-26-node-production;
the SKU limits of the H100 and H200, made from the same runs, are left out."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT)
from analysis.model import cli  # noqa: E402
from analysis.tables import make_ranges  # noqa: E402
from analysis.model import archive  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402

RESULTS = os.path.join(ROOT, "docs", "results")
CALIBRATION = [os.path.join(RESULTS, d, "raw.tar.xz", "runs") for d in ("2026-11-25-verdicts", "2026-11-25-checks",
                                                          "2026-11-26-verdicts")]
LINK_RUNS = archive.runs(os.path.join(RESULTS, "2026-11-26-node-production", "raw.tar.xz", "runs", "x4*-node-*.json"))
PLANTED = ("busy", "flip", "streamer", "planted", "link", "node-gpu", "memory")
_MADE = {}


def calibration_runs():
    return sorted(p for d in CALIBRATION for p in archive.runs(os.path.join(d, "*.json"))
                  if not any(word in os.path.basename(p) for word in PLANTED))


def boards_of(path):
    return {part.context.get("gpu_uuid") for _, part in cli.load(path).devices()}


def limits_without(boards):
    """The shipped limits with the sm_90 architecture's made again without any run of `boards`, and no H100 or H200
    SKU limits."""
    key = frozenset(boards)
    if key not in _MADE:
        table = limit_table.load(limit_table.RANGES)
        table["skus"] = {k: v for k, v in table["skus"].items()
                         if not {"NVIDIA H100 80GB HBM3", "NVIDIA H200"} & set(v["names"])}
        kept = [p for p in calibration_runs() if not boards_of(p) & key]
        shipped = table["architectures"]["sm_90"]
        entry = make_ranges.make_arch_entry(kept, "sm_90", shipped["name"],
                                            f"the calibration runs less those of {sorted(key)}")
        entry["links"] = make_ranges.link_limits([p for p in LINK_RUNS if not boards_of(p) & key],
                                                 "the 4-H200 node runs", 4.0, 0.04)
        table["architectures"]["sm_90"] = entry
        _MADE[key] = table
    return _MADE[key]
