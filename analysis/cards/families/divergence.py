"""Divergence: how many times longer a warp takes when its lanes take N paths (docs/experiments/divergence.md)."""
from analysis.model.values import Value
from analysis.cards.physics import cases, near

FAMILIES = ("Divergence",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_path": "sm_clocks", "slowdown": "sm_clocks", "ns_per_path": "sm_time"}

ORDER = 40
SECTION = "Control flow and shared memory"


def card(report):
    paths = {int(r.args["paths"]): r for r in report.rows("Divergence/Paths", "slowdown")}
    for count in (2, 32):
        label = f"{count}-way divergent warp"
        if count not in paths:
            yield Value.missing(f"divergence.slowdown_{count}", SECTION, label, "x")
            continue
        row = paths[count]
        yield Value(f"divergence.slowdown_{count}", SECTION, label, float(row["slowdown"]), "x", row.short_name,
                    f"{float(row['slowdown']):.2f}x the converged warp, {float(row['cycles_per_path']):.0f} cycles per path",
                    better="exact", set_by="sm")  # N paths cost N times one: off either way is a fault


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_divergence(rows):
    """N distinct paths in one warp serialize: slowdown ~ N (here within 30%)."""
    return [near(c.name, c["slowdown"], int(c.args["paths"]), 0.3, "x the converged warp")
            for c in sorted(cases(rows, "Divergence/Paths"), key=lambda c: c.name)]


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_divergence(rows)
