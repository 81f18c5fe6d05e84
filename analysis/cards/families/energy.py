"""Energy: picojoules per FLOP (FMA per precision, FP16 tensor-core mma) and per bit (L1, L2, DRAM reads,
a DRAM copy, the normalisation), zero and random data, above the active-idle power; the baselines; per level,
a least-squares split of a read's energy into a part per load and a part per bit (4-, 8- and 16-byte loads
move the same bits in 4x, 2x, 1x the loads). docs/experiments/energy.md. Full preset only."""
from analysis.model import values
from analysis.model.values import Value
from analysis.cards.physics import one

FAMILIES = ("Energy",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {}  # energy per operation from the board's power sensor: shown, not judged

ORDER = 85
SECTION = "Energy"
FLOP, BIT = ("pj_per_flop", "pJ/FLOP"), ("pj_per_bit", "pJ/bit")
ROWS = (("hfma2", "FP16 FMA (HFMA2)", FLOP), ("ffma", "FP32 FMA", FLOP), ("dfma", "FP64 FMA", FLOP),
        ("mma_sync_f16", "FP16 tensor core, mma.sync", FLOP), ("wgmma_f16", "FP16 tensor core, wgmma", FLOP),
        ("l1_read", "L1 read", BIT), ("l2_read", "L2 read", BIT), ("dram_read", "DRAM read", BIT),
        ("dram_copy", "DRAM copy (read + write)", BIT), ("normalize", "normalisation (read + write)", BIT))
WIDTHS = (4, 8, 16)


def least_squares(points):
    """Intercept and slope of the line through (x, y) points that minimises the squared error."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return None
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    return mean_y - slope * mean_x, slope


def per_load_split(report, case, label):
    """pJ/bit at width w is e_bit + e_load / (8 w): fitted over the random-data rows of every width."""
    points = []
    for width in WIDTHS:
        rows = report.rows(f"Energy/{case}", "pj_per_bit", operands=1, width=width)
        if rows:
            points.append((1.0 / (8 * width), rows[0].value("pj_per_bit"), rows[0]))
    key = f"energy.{case}.split"
    if len(points) < 3:
        return Value.missing(key, SECTION, f"{label}: per bit and per load", "pJ/bit")
    fit = least_squares([(x, y) for x, y, _ in points])
    if fit is None:
        return Value.missing(key, SECTION, f"{label}: per bit and per load", "pJ/bit")
    per_bit, per_load = fit
    source = f"Energy/{case}/operands:1/width:4,8,16 ({len(points)} rows)"
    text = (f"{per_bit:.2f} pJ/bit + {per_load:.0f} pJ per lane's load (least squares over 4-, 8-, 16-byte loads: "
            + ", ".join(f"{y:.2f}" for _, y, _ in points) + " pJ/bit)")
    return Value(key, SECTION, f"{label}: per bit and per load", per_bit, "pJ/bit", source, text)


def card(report):
    if not any(r.matches("Energy") for r in report.all_rows):
        # The quick preset has no Energy rows (each takes seconds): say where they come from.
        yield Value("energy.rows", SECTION, "energy per FLOP and per bit", None, "pJ", None,
                    "not in this run: the full preset's rows, `gpubench --gpubench_preset=full --benchmark_filter=^Energy/`")
        return
    baseline = None
    for case, label, (metric, unit) in ROWS:
        for operands, data in ((1, "random"), (0, "zero")):
            key = f"energy.{case}.{data}"
            args = {"operands": operands}
            if case in ("l2_read", "dram_read"):
                args["width"] = 16
            rows = report.rows(f"Energy/{case}", metric, **args)
            if not rows:
                if case == "normalize" and data == "zero":
                    continue  # random data only
                yield values.not_run(report, f"Energy/{case}", key, SECTION, f"{label}, {data} data", unit)
                continue
            row = rows[0]
            baseline = baseline or row
            text = (f"{row.value(metric):.2f} {unit} ({row.value('pj_min'):.2f}-{row.value('pj_max'):.2f} over the "
                    f"windows), {row.value('energy_power_w'):.0f} W")
            yield Value(key, SECTION, f"{label}, {data} data", row.value(metric), unit, row.short_name, text)
    yield per_load_split(report, "l2_read", "L2 read")
    yield per_load_split(report, "dram_read", "DRAM read")
    if baseline is not None:
        yield Value("energy.baseline", SECTION, "baseline power", baseline.value("active_idle_power_w"), "W",
                    baseline.short_name, f"idle {baseline.value('idle_power_w'):.0f} W, active-idle (every SM resident, "
                    f"asleep) {baseline.value('active_idle_power_w'):.0f} W, subtracted")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_energy(rows):
    """Energy per unit is positive; random data costs at least zeros (2% noise); more work costs more: FP64
    more per FLOP than FP32, FP32 more than the FP16 tensor core, a DRAM bit more than an L2 bit, an L2 bit more
    than an L1 bit, and the same bits in 4-byte loads at least what they cost in 16-byte loads."""
    results = []
    for row in rows.values():
        if not row.registered.startswith("Energy/"):
            continue
        metric = "pj_per_flop" if "pj_per_flop" in row else "pj_per_bit"
        if metric not in row:
            continue
        results.append((row.name + " positive", row[metric] > 0, f"{row[metric]:.3f} pJ"))
        if row.args.get("operands") == 1:
            same = {k: v for k, v in row.args.items() if k != "operands"}
            zero = one(rows, row.registered, operands=0, **same)
            if zero:
                results.append((row.name + " random >= zero", row[metric] >= 0.98 * zero[metric],
                                f"{row[metric]:.3f} vs {zero[metric]:.3f} pJ"))
    wide = {"operands": 1, "width": 16}
    for high, low, metric, high_args, low_args in (
            ("Energy/dfma", "Energy/ffma", "pj_per_flop", {"operands": 1}, {"operands": 1}),
            ("Energy/ffma", "Energy/wgmma_f16", "pj_per_flop", {"operands": 1}, {"operands": 1}),
            ("Energy/ffma", "Energy/mma_sync_f16", "pj_per_flop", {"operands": 1}, {"operands": 1}),
            ("Energy/dram_read", "Energy/l2_read", "pj_per_bit", wide, wide),
            ("Energy/l2_read", "Energy/l1_read", "pj_per_bit", wide, {"operands": 1}),
            ("Energy/l2_read", "Energy/l2_read", "pj_per_bit", {"operands": 1, "width": 4}, wide),
            ("Energy/dram_read", "Energy/dram_read", "pj_per_bit", {"operands": 1, "width": 4}, wide)):
        a, b = one(rows, high, **high_args), one(rows, low, **low_args)
        if a and b and metric in a and metric in b:
            results.append((f"{a.name} above {b.name}", a[metric] > 0.98 * b[metric],
                            f"{a[metric]:.3f} vs {b[metric]:.3f} pJ"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_energy(rows)
