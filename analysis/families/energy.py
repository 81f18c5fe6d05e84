"""Energy: picojoules per FLOP (FP32, FP64 FMA) and per bit read (L2, DRAM), zero and random data, above
the active-idle power; the baselines (docs/experiments/energy.md). Full preset only."""
from analysis import values
from analysis.values import Value

FAMILIES = ("Energy",)
ORDER = 85
SECTION = "Energy"
ROWS = (("ffma", "FP32 FMA", "pj_per_flop", "pJ/FLOP"), ("dfma", "FP64 FMA", "pj_per_flop", "pJ/FLOP"),
        ("l2_read", "L2 read", "pj_per_bit", "pJ/bit"), ("dram_read", "DRAM read", "pj_per_bit", "pJ/bit"))


def card(report):
    if not any(r.matches("Energy") for r in report.all_rows):
        # The quick preset has no Energy rows (each takes seconds): say where they come from.
        yield Value("energy.rows", SECTION, "energy per FLOP and per bit", None, "pJ", None,
                    "not in this run: the full preset's rows, `gpubench --gpubench_preset=full --benchmark_filter=^Energy/`")
        return
    baseline = None
    for case, label, metric, unit in ROWS:
        for operands, data in ((1, "random"), (0, "zero")):
            key = f"energy.{case}.{data}"
            rows = report.rows(f"Energy/{case}", metric, operands=operands)
            if not rows:
                yield values.not_run(report, f"Energy/{case}", key, SECTION, f"{label}, {data} data", unit)
                continue
            row = rows[0]
            baseline = baseline or row
            text = (f"{row.value(metric):.2f} {unit} ({row.value('pj_min'):.2f}-{row.value('pj_max'):.2f} over the "
                    f"windows), {row.value('energy_power_w'):.0f} W")
            yield Value(key, SECTION, f"{label}, {data} data", row.value(metric), unit, row.short_name, text)
    if baseline is not None:
        yield Value("energy.baseline", SECTION, "baseline power", baseline.value("active_idle_power_w"), "W",
                    baseline.short_name, f"idle {baseline.value('idle_power_w'):.0f} W, active-idle (every SM resident, "
                    f"asleep) {baseline.value('active_idle_power_w'):.0f} W, subtracted")
