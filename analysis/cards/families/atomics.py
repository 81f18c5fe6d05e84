"""Atomics: what an atomicAdd costs as more lanes of a warp, or every warp of the GPU, add to one counter, in
global and shared memory (docs/experiments/atomics.md)."""
from analysis.cards.loop_rules import SASS_CONTROL
from analysis.cards.physics import cases, near
from analysis.model.values import Value

FAMILIES = ("Atomics",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"atomics_per_clock": "sm_clocks", "atomics_per_second": "sm_time"}


# Counters of 1-4 lanes each (8-32 per warp) are served by whichever L2 slices they land in: the rate is at two levels,
# run to run, across the 8 placement sets the rows walk (red 8.7%, atom 13-15% apart between identical runs of one
# H200; docs/results/2026-11-28-full-node-pair). Such a row is placed, as a set at a capacity edge is.
PLACED_LANES_PER_ADDRESS = 4


def noise_class(row, quantity, context):
    """Global atomics are served by the L2 slices: a cache's rate, not the SM's; placed where few lanes share a
    counter."""
    if row.registered.startswith("Atomics/global") and quantity in NOISE:
        lanes = row.args.get("lanes_per_address")
        placed = row.registered.endswith("/warp") and lanes is not None and int(lanes) <= PLACED_LANES_PER_ADDRESS
        return "capacity_edge" if placed else "cache_bandwidth"
    return None

ORDER = 45
SECTION = "Atomics"
UNIT = "atomics/clk"

# (key, registered, lanes per address, label): the quick preset's rows. A value whose lanes share a counter is
# also given against the row of its kind with a counter per lane (AGAINST names another kind where it differs).
CARD = (
    ("atomics.global_per_lane", "Atomics/global/red/warp", 1, "global atomicAdd, a counter per lane"),
    ("atomics.global_per_warp", "Atomics/global/red/warp", 32, "global atomicAdd, one counter per warp"),
    ("atomics.global_per_gpu", "Atomics/global/red/gpu", 32, "global atomicAdd, one counter for the whole GPU"),
    ("atomics.shared_per_lane", "Atomics/shared/red/warp", 1, "shared atomicAdd (+1), a counter per lane"),
    ("atomics.shared_per_warp", "Atomics/shared/red/warp", 32, "shared atomicAdd (+1), one counter per warp"),
    ("atomics.shared_old_per_lane", "Atomics/shared/atom/warp", 1, "shared atomicAdd returning the old value, a counter per lane"),
    ("atomics.shared_old_per_warp", "Atomics/shared/atom/warp", 32, "shared atomicAdd returning the old value, one counter per warp"),
)
# A row whose lanes share counters, read against the row of the same kind with a counter per lane.
AGAINST = {"Atomics/global/red/gpu": "Atomics/global/red/warp"}


def rate_row(report, registered, lanes):
    rows = report.rows(registered, "atomics_per_clock", lanes_per_address=lanes)
    return rows[0] if rows else None


def card(report):
    for key, registered, lanes, label in CARD:
        row = rate_row(report, registered, lanes)
        if row is None:
            yield Value.missing(key, SECTION, label, UNIT)
            continue
        per_clock = row.value("atomics_per_clock")
        text = f"{per_clock:.1f} atomics per SM clock over the GPU, {row.value('atomics_per_second') / 1e9:.1f} G/s"
        per_lane = rate_row(report, AGAINST.get(registered, registered), 1) if lanes > 1 else None
        if per_lane is not None:
            text += f"; a counter per lane is {per_lane.value('atomics_per_clock') / per_clock:.1f}x as fast"
        # Shared-memory atomics are the SM's; L2 atomics depend on the L2 slices behind it.
        yield Value(key, SECTION, label, per_clock, UNIT, row.short_name, text,
                    set_by="sm" if key.startswith("atomics.shared") else "part")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def by_lanes(rows, registered):
    return {int(c.args["lanes_per_address"]): c["atomics_per_clock"] for c in cases(rows, registered)
            if "atomics_per_clock" in c}


def check_same_address_serializes(rows):
    """Adds to one address are carried out one after another: in L2, every warp of the GPU on 32 lanes' worth of
    addresses goes twice as fast with twice the addresses (8 against 32 lanes an address: 4x); in shared memory,
    adds that return the old value take one pass per lane that shares an address (32 lanes: 32x, within 30%)."""
    found = []
    gpu = by_lanes(rows, "Atomics/global/red/gpu")
    if 8 in gpu and 32 in gpu:
        found.append(near("Atomics/global/red/gpu: 8 against 32 lanes an address", gpu[8] / gpu[32], 4.0, 0.3,
                          "x the rate of 32"))
    shared = by_lanes(rows, "Atomics/shared/atom/warp")
    if 1 in shared and 32 in shared:
        found.append(near("Atomics/shared/atom/warp: a counter per lane against 32 lanes on one", shared[1] / shared[32],
                          32.0, 0.3, "x the rate of 32 lanes on one address"))
    return found


def check_shared_increment_is_one_pass(rows, report):
    """ptxas makes a shared add of the constant 1 with no value back one ATOMS.POPC.INC per address (the lanes
    counted, not queued): lanes sharing a counter cost nothing (within 30%), and an SM takes a warp's adds a clock
    (32 adds per SM per clock, within 30%)."""
    shared = by_lanes(rows, "Atomics/shared/red/warp")
    if 1 not in shared or 32 not in shared:
        return []
    found = [near("Atomics/shared/red/warp: 32 lanes on one address", shared[32] / shared[1], 1.0, 0.3,
                  "x the rate of a counter per lane")]
    sms = report.context.get("gpu_sm_count")
    if sms:
        found.append(near("Atomics/shared/red/warp: a counter per lane", shared[1] / float(sms), 32.0, 0.3,
                          "adds per SM per clock"))
    return found


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_same_address_serializes(rows) + check_shared_increment_is_one_pass(rows, report)


# The timed loops hold the atomics and loop control only; the atom loops also sum the old values (IADD3).
LOOP_RULES = {
    rule: {"kernel": kernel, "sass": (allowed | SASS_CONTROL, required)}
    for rule, kernel, allowed, required in (
        ("atomic_red_global", r"17atomic_add_globalILNS0_8AtomicOpE0E", {"REDG"}, r"^REDG\.E\.ADD\b"),
        ("atomic_atom_global", r"17atomic_add_globalILNS0_8AtomicOpE1E", {"ATOMG"}, r"^ATOMG\.E\.ADD\b"),
        ("atomic_red_shared", r"17atomic_add_sharedILNS0_8AtomicOpE0E", {"ATOMS"}, r"^ATOMS\.POPC\.INC\b"),
        ("atomic_atom_shared", r"17atomic_add_sharedILNS0_8AtomicOpE1E", {"ATOMS"}, r"^ATOMS\.ADD\b"))
}
