"""Burn (the burn preset): the GPU under tensor-core GEMM and memory traffic for minutes, every answer verified, its
clocks, power, temperatures and clock-event reasons each second (docs/experiments/burn.md). The card states the rates
held, the power and the hottest second; the verdict judges:
- a wrong GEMM or memory answer (the run's wrong result, exit 8);
- the GEMM rate against the node's other GPUs of its name (the node layer, at NODE_TOLERANCE: gpu-fryer's 10%);
- the rate held from the burn's first quarter to its last (the own layer: a GPU that slows as it heats);
- the hardware holding the clocks back (findings: HW slowdown, HW thermal, power brake drain; SW thermal warns),
  with the reason and the second it began. The power cap holding a GEMM's clocks is the board working as designed:
  said, not judged."""
from analysis.model.values import Value, short

FAMILIES = ("Burn",)
# A burn's rates move with the power cap and the board's temperature; compare has no calibrated class for them.
NOISE = {}

ORDER = 95
SECTION = "Under load (burn)"
# The node layer's tolerance for the burn's GEMM rate: gpu-fryer's rule (10% below the node's others).
NODE_TOLERANCE = 0.10
# The own layer's limit: the last quarter's rate at least this fraction of the first quarter's.
HELD_LIMIT = 0.90
# NVML's clock-event reason bits (nvml.h's nvmlClocksEventReason*): what holds the clocks, and what a finding does.
REASONS = ((0x8, "hw_slowdown", "HW slowdown", "drain"), (0x40, "hw_thermal", "HW thermal slowdown", "drain"),
           (0x80, "hw_power_brake", "HW power brake", "drain"), (0x20, "sw_thermal", "SW thermal slowdown", "warn"),
           (0x4, "sw_power_cap", "SW power cap", None))


def burn_row(report):
    rows = [r for r in report.rows("Burn/gemm_and_memory") if r.value("gemm_tflops") is not None]
    return max(rows, key=lambda r: r.value("burn_s") or 0) if rows else None


def series(row):
    """{name: [...]} of the row's per-second readings."""
    return (row.get("gpubench") or {}).get("series", {}) if row else {}


def quarter_rates(row):
    """(first quarter's, last quarter's) mean of the per-second GEMM rates, or None with fewer than 8 seconds."""
    rates = [r for r in series(row).get("gemm_tflops", []) if r]
    if len(rates) < 8:
        return None
    quarter = len(rates) // 4
    return sum(rates[:quarter]) / quarter, sum(rates[-quarter:]) / quarter


def clock_events(row):
    """[(code, words, action, first second, seconds held)] of the reasons seen in the per-second readings."""
    data = series(row)
    at, bits = data.get("burn_at_s", []), data.get("clock_reasons", [])
    seen = []
    for bit, code, words, action in REASONS:
        held = [t for t, b in zip(at, bits) if int(b or 0) & bit]
        if held:
            seen.append((code, words, action, held[0], len(held)))
    return seen


def card(report):
    row = burn_row(report)
    if row is None:
        yield Value("burn.gemm_tflops", SECTION, "FP16 GEMM rate under burn", None, "TFLOP/s", None,
                    "not in this run: the burn preset's (every GPU at once for minutes), "
                    "`gpubench --gpubench_preset=burn --gpubench_device=all`")
        return
    source = short(row["run_name"])
    seconds = row.value("burn_s") or 0
    power = row.value("power_w")
    limit = row.value("power_limit_w")
    rate = Value("burn.gemm_tflops", SECTION, "FP16 GEMM rate under burn", row.value("gemm_tflops"), "TFLOP/s",
                 source, f"{row.value('gemm_tflops'):.0f} TFLOP/s over {seconds:.0f} s ({row.value('gemms') or 0:.0f} "
                         f"products of 8192^3, each verified), {row.value('gemm_tflops_end') or 0:.0f} in the last "
                         "quarter")
    rate["node_tolerance"] = NODE_TOLERANCE
    yield rate
    rates = quarter_rates(row)
    if rates:
        first, last = rates
        yield Value("burn.gemm_held", SECTION, "GEMM rate held (last quarter / first)", last / first,
                    "of the first quarter", source, f"{first:.0f} TFLOP/s in the first quarter, {last:.0f} in the last",
                    better="higher", limit={"low": HELD_LIMIT, "against": "against its first quarter", "source": "the burn's own first quarter "
                                                                         "(docs/experiments/burn.md)"})
    yield Value("burn.memory_gbs", SECTION, "memory test rate under burn", row.value("memory_gbs"), "GB/s", source,
                f"{row.value('memory_rounds') or 0:.0f} rounds of 8 passes over 2 GiB, "
                f"{row.value('wrong_words') or 0:.0f} words read wrong")
    if power is not None:
        capped = row.value("power_capped_s")
        text = f"{power:.0f} W" + (f" of a {limit:.0f} W limit" if limit else "")
        if capped:
            text += f"; the power cap held the clocks {capped:.0f} s of {seconds:.0f}"
        yield Value("burn.power_w", SECTION, "board power under burn", power, "W", source, text, better="info")
    hottest = row.value("temperature_c_max")
    if hottest:
        memory = row.value("memory_temperature_c_max")
        yield Value("burn.temperature_c_max", SECTION, "hottest second (GPU)", hottest, "C", source,
                    f"{hottest:.0f} C" + (f", HBM {memory:.0f} C" if memory else ""), better="info")
    events = clock_events(row)
    yield Value("burn.clock_events", SECTION, "clocks held back by", len(events), "reasons", source,
                "; ".join(f"{words} from {first:.0f} s ({held} s)" for _, words, _, first, held in events) or "nothing",
                better="info")


def reason_names(bits):
    """"SW power cap, HW slowdown" of a reasons word (the bits REASONS names), "none" for none of them."""
    return ", ".join(words for bit, _, words, _ in REASONS if int(bits) & bit) or "none"


def findings(report):
    """Verdict findings of the burn ({"code", "action", "text"}): the hardware holding the clocks back, with the
    reason and when it began. None without a burn row. A planted reason (GPUBENCH_PLANT_BURN) says so, with what NVML
    really read."""
    row = burn_row(report)
    real = series(row).get("clock_reasons_real")
    out = []
    for code, words, action, first, held in clock_events(row):
        if action:
            found = {"code": "burn_" + code, "action": action,
                     "text": f"{words} held the clocks under the burn from {first:.0f} s ({held} s of "
                             f"{row.value('burn_s') or 0:.0f})"}
            if real is not None:
                seen = 0
                for bits in real:
                    seen |= int(bits or 0)
                found |= {"planted": row.get("label") or "GPUBENCH_PLANT_BURN", "real": reason_names(seen)}
            out.append(found)
    return out


def physics(rows, report):
    """The physics check of validate_physics.py: every answer of the burn was right."""
    row = burn_row(report)
    if row is None:
        return []
    return [("burn answers verified", (row.value("wrong_elements") or 0) == 0 and (row.value("wrong_words") or 0) == 0,
             f"{row.value('wrong_elements') or 0:.0f} GEMM elements, {row.value('wrong_words') or 0:.0f} words wrong")]
