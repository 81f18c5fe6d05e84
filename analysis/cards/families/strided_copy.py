"""StridedCopy: a gather at growing strides (docs/experiments/strided_copy.md); no card row, physics only."""
from analysis.cards.physics import cases, near

FAMILIES = ("StridedCopy",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "dram_bandwidth"}



# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_strided(rows):
    """Stride >= 8 floats: every lane needs its own 32-byte sector (32 per request); stride 1: 4."""
    return [near(c.name, c["sectors_per_request"], min(32, 4 * int(c.args["stride"])), 0.1, "sectors per request")
            for c in sorted(cases(rows, "StridedCopy/Gather"), key=lambda c: c.args["stride"])
            if "sectors_per_request" in c]


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_strided(rows)
