"""SharedBankConflict: cycles per conflict way, the bank model against CUPTI's wavefronts, and the
transpose tile layouts (docs/experiments/shared_bank_conflict.md)."""
import statistics

from analysis.model.values import Value
from analysis.cards.physics import one

FAMILIES = ("SharedBankConflict",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_load": "sm_clocks", "ns_per_load": "sm_time"}

LEGACY = ("SharedBankConflict/Ways",)  # runs from before the stride sweep (read for them, no longer registered)
ORDER = 41
SECTION = "Control flow and shared memory"


def conflict_degrees(report):
    """(conflict degree, cycles per warp load) of the 4-byte stride rows (degree gcd(stride, 32)), or the
    power-of-two ways of runs from before the stride sweep."""
    ways = sorted((float(r["predicted_degree"]), float(r["cycles_per_load"]))
                  for r in report.rows("SharedBankConflict/Stride", "cycles_per_load", bytes=4)
                  if "predicted_degree" in r)
    if not ways:
        ways = sorted((int(r.args["ways"]), float(r["cycles_per_load"]))
                      for r in report.rows("SharedBankConflict/Ways", "cycles_per_load"))
    return ways


def layout(row):
    """A transpose row's tile layout ("padded"): its string axis; runs from before 2026-11-25 carry none, and
    their registered name ends in it (SharedBankConflict/Transpose/padded)."""
    return row.args.get("layout") or row.registered.rsplit("/", 1)[-1]


def card(report):
    ways = conflict_degrees(report)
    if len({w for w, _ in ways}) >= 2:
        # Least squares over the degrees: the cycles each extra conflicting word adds to a warp's load.
        mean_w = statistics.mean(w for w, _ in ways)
        mean_c = statistics.mean(c for _, c in ways)
        slope = sum((w - mean_w) * (c - mean_c) for w, c in ways) / sum((w - mean_w) ** 2 for w, _ in ways)
        yield Value("shared.cycles_per_conflict_way", SECTION, "shared-memory bank conflict", slope, "cycles per way",
                    f"SharedBankConflict 4-byte loads, degree {ways[0][0]:.0f}..{ways[-1][0]:.0f} ({len(ways)} rows)",
                    f"{slope:.2f} cycles per way (degree 1: {ways[0][1]:.2f}, {ways[-1][0]:.0f}: "
                    f"{ways[-1][1]:.2f} cycles per warp load)", set_by="sm")
    else:
        yield Value.missing("shared.cycles_per_conflict_way", SECTION, "shared-memory bank conflict", "cycles per way")
    patterns = [r for r in report.rows("SharedBankConflict", "wavefronts_per_load") if "predicted_wavefronts" in r]
    if patterns:
        agree = [r for r in patterns if abs(float(r["wavefronts_per_load"]) - float(r["predicted_wavefronts"]))
                 <= 0.01 * float(r["predicted_wavefronts"])]
        yield Value("shared.model_agreement", SECTION, "bank model against CUPTI wavefronts", len(agree) / len(patterns),
                    "of patterns", f"SharedBankConflict ({len(patterns)} rows)",
                    f"{len(agree)} of {len(patterns)} access patterns took the predicted wavefronts (within 1%)",
                    set_by="sm")
    tiles = {layout(r): float(r["cycles_per_load"]) for r in report.rows("SharedBankConflict/Transpose", "cycles_per_load")}
    if tiles:
        yield Value("shared.transpose_column_read", SECTION, "tile column read (transpose)", tiles.get("naive"),
                    "cycles per warp load", "SharedBankConflict/Transpose",
                    ", ".join(f"{name} {cycles:.2f}" for name, cycles in sorted(tiles.items())) + " cycles per warp load",
                    set_by="sm")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_bank_conflicts(rows):
    """Every access pattern takes the wavefronts the bank model predicts (CUPTI, within 1%), and with the
    pipe saturated a load costs about its wavefronts: cycles per load ~ wavefronts x the conflict-free cost."""
    results = []
    base = one(rows, "SharedBankConflict/Stride", bytes=4, stride=1).get("cycles_per_load")
    for counters in sorted(rows.values(), key=lambda c: c.name):
        if not counters.registered.startswith("SharedBankConflict/") or "predicted_wavefronts" not in counters:
            continue
        name = counters.name
        predicted = counters["predicted_wavefronts"]
        if "wavefronts_per_load" in counters:
            got = counters["wavefronts_per_load"]
            results.append((name + " wavefronts", abs(got - predicted) <= 0.01 * predicted,
                            f"{got:.3f} wavefronts per load, predicted {predicted:.0f}"))
        if base and predicted >= 2:
            ratio = counters["cycles_per_load"] / base
            results.append((name + " cycles", 0.5 * predicted <= ratio <= 1.5 * predicted,
                            f"{ratio:.2f}x the conflict-free cycles per load, expected ~{predicted:.0f}x"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_bank_conflicts(rows)
