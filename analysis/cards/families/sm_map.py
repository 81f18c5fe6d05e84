"""SmMap: every SM measured at once (FP32 FMA rate, shared-memory bandwidth, mma.sync FP16 rate, L2 latency), each
SM judged against the chip's own median, named with its GPC group; and the answers every SM gave, verified in the
run (docs/experiments/sm_map.md)."""
from analysis.model.values import Value

FAMILIES = ("SmMap",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"rate_median": "sm_clocks", "latency_median": "memory_latency", "worst_vs_median": "sm_clocks"}


def noise_class(row, quantity, context):
    """The farthest SM's L2 latency against the median: where the board's SMs sit against its L2 (H100 boards 0.931 to
    0.944), not a rate every SM shares."""
    if row.registered == "SmMap/l2_latency" and quantity == "worst_vs_median":
        return "sm_placement"
    return None

ORDER = 90
SECTION = "Every SM at once"

# (case, label, series, unit, lower is better, tolerance): an SM is outside when the chip's median over it (a
# latency) or it over the median (a rate) is below the tolerance. Healthy H100s: rates within 0.1% of the median,
# the L2 latency within 0.93 (where an SM sits); docs/experiments/sm_map.md has the calibration.
MAPS = (("fma", "FP32 FMA rate", "flops_per_clock", "FLOP/clk/SM", False, 0.97),
        ("shared", "shared-memory bandwidth", "bytes_per_clock", "B/clk/SM", False, 0.97),
        ("mma", "mma.sync FP16 rate", "flops_per_clock", "FLOP/clk/SM", False, 0.97),
        ("l2_latency", "L2 load-to-use latency", "cycles_per_load", "cycles", True, 0.89))
CHIP_SOURCE = "the chip's own median (docs/experiments/sm_map.md)"


def gpc_of(report):
    """{sm: GPC group} from SmMap/gpc, or {}."""
    rows = report.rows("SmMap/gpc")
    series = (rows[0].get("gpubench") or {}).get("series", {}) if rows else {}
    return {int(sm): int(g) for sm, g in zip(series.get("sms", []), series.get("gpc", [])) if g is not None and g >= 0}


def per_sm(row, series):
    """[(sm, value)] of a map row's series."""
    data = (row.get("gpubench") or {}).get("series", {})
    return [(int(sm), float(v)) for sm, v in zip(data.get("sms", []), data.get(series, [])) if v is not None]


def where(sm, gpcs):
    return f"SM {sm}" + (f" (GPC group {gpcs[sm]})" if sm in gpcs else "")


def map_values(report, case, label, series, unit, lower, tolerance, gpcs, sm_count):
    key = f"sm_map.{case}"
    rows = report.rows(f"SmMap/{case}")
    if not rows:
        yield Value.missing(key + ".median", SECTION, label, unit)
        return
    row = rows[0]
    readings = per_sm(row, series)
    if not readings:
        yield Value.missing(key + ".median", SECTION, label, unit)
        return
    values = sorted(v for _, v in readings)
    n = len(values)
    m = values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])

    def ratio(v):
        return m / v if lower else v / m
    outside = sorted(((sm, v) for sm, v in readings if ratio(v) < tolerance), key=lambda item: ratio(item[1]))
    worst_sm, worst = min(readings, key=lambda item: ratio(item[1]))
    spread = f"{values[0]:.4g}-{values[-1]:.4g} over {n} SMs"
    yield Value(key + ".median", SECTION, f"{label}, median SM", m, unit, row.short_name,
                f"{m:.4g} {unit}, {spread}", better="lower" if lower else "higher", set_by="sm")
    if outside:
        text = "outside: " + "; ".join(f"{where(sm, gpcs)} {ratio(v):.3f}" for sm, v in outside[:6]) + \
               (f" and {len(outside) - 6} more" if len(outside) > 6 else "")
    else:
        text = f"{ratio(worst):.4f}: every SM within {tolerance:.2f} of the median; the worst {where(worst_sm, gpcs)}"
    yield Value(key + ".worst_vs_median", SECTION, f"{label}, worst SM against the median", ratio(worst),
                "of the median", row.short_name, text, better="higher",
                limit={"low": tolerance, "source": CHIP_SOURCE})
    if sm_count:
        missing = sorted(set(range(sm_count)) - {sm for sm, _ in readings})
        text = (f"{n} of {sm_count}: every SM ran a block" if not missing else
                "not measured: " + ", ".join(where(sm, gpcs) for sm in missing[:8]) + " (no block of the map ran there)")
        yield Value(key + ".sms_measured", SECTION, f"{label}, SMs measured", float(n), "SMs", row.short_name, text,
                    better="exact", limit={"low": float(sm_count), "high": float(sm_count),
                                           "source": "every SM of the GPU (gpu_sm_count)"})


def card(report):
    gpcs = gpc_of(report)
    try:
        sm_count = int(report.context.get("gpu_sm_count") or 0)
    except ValueError:
        sm_count = 0
    for case, label, series, unit, lower, tolerance in MAPS:
        yield from map_values(report, case, label, series, unit, lower, tolerance, gpcs, sm_count)
    rows = report.rows("SmMap/gpc", "gpcs")
    if rows:
        sizes = {}
        for group in gpcs.values():
            sizes[group] = sizes.get(group, 0) + 1
        yield Value("sm_map.gpc_groups", SECTION, "GPC groups (SMs seen in one cluster)", rows[0].value("gpcs"),
                    "groups", rows[0].short_name,
                    f"{len(gpcs)} SMs in groups of " + ", ".join(str(s) for s in sorted(sizes.values(), reverse=True)),
                    better="info")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def physics(rows, report):
    """Every SM answered right, and the rates sit near the architecture's: an SM's FP32 FMA is 128 lanes (256 FLOP
    per clock), its shared memory 128 bytes per clock."""
    results = []
    for row in report.rows("SmMap"):
        if row.value("wrong_results"):
            results.append((row.short_name, False, row.get("label", "wrong results")))
    expected = {"SmMap/fma": 256.0, "SmMap/shared": 128.0}
    for name, peak in expected.items():
        for row in report.rows(name, "rate_median"):
            value = row.value("rate_median")
            results.append((row.short_name, 0.5 * peak <= value <= 1.05 * peak,
                            f"median SM {value:.1f} per clock, the architecture's {peak:.0f} (50-105%)"))
    return results
