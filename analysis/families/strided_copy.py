"""StridedCopy: a gather at growing strides (docs/experiments/strided_copy.md); no card row, physics only."""
from analysis.physics import cases

FAMILIES = ("StridedCopy",)


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_strided(rows):
    """Stride >= 8 floats: every lane needs its own 32-byte sector (32 per request); stride 1: 4."""
    results = []
    for counters in sorted(cases(rows, "StridedCopy/Gather"), key=lambda c: c.args["stride"]):
        if "sectors_per_request" not in counters:
            continue
        name, stride = counters.name, int(counters.args["stride"])
        expected = min(32, 4 * stride)
        got = counters["sectors_per_request"]
        ok = 0.9 * expected <= got <= 1.1 * expected
        results.append((name, ok, f"{got:.2f} sectors per request, expected {expected}"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_strided(rows)
