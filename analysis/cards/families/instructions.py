"""InstructionLatency and InstructionThroughput: each instruction's dependent-chain latency and the best
fraction of its pipe's peak over the ILP x warps sweep (docs/experiments/instruction_*.md)."""
from analysis.model.values import Value
from analysis.cards.physics import cases, one
from analysis.cards.loop_rules import PTX_CONTROL, SASS_CONTROL

FAMILIES = ("InstructionLatency", "InstructionThroughput")
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_op": "sm_clocks", "cycles_per_op_per_thread": "sm_clocks", "ops_per_clock_per_sm": "sm_clocks",
         "fraction_of_peak": "sm_clocks", "ns_per_op": "sm_time", "tops": "sm_time", "tflops": "sm_time"}

ORDER = 30
SECTION = "Compute"
# The instructions the card reports, as the kernels name them (kernels/compute/instruction_chains.cuh).
CARD_INSTRUCTIONS = [("ffma", "FP32 FMA"), ("dfma", "FP64 FMA"), ("hfma2", "FP16x2 FMA"), ("rsqrt", "MUFU rsqrt"),
                     ("ex2", "MUFU ex2"), ("sin", "MUFU sin")]


def card(report):
    for name, label in CARD_INSTRUCTIONS:
        latency = report.rows(f"InstructionLatency/{name}", "cycles_per_op")
        if latency:
            row = latency[0]
            yield Value(f"compute.{name}.latency_cycles", SECTION, f"{label} latency", float(row["cycles_per_op"]),
                        "cycles", row.short_name,
                        f"{float(row['cycles_per_op']):.2f} cycles, {float(row['ns_per_op']):.2f} ns", set_by="sm")
        else:
            yield Value.missing(f"compute.{name}.latency_cycles", SECTION, f"{label} latency", "cycles")
        cells = report.rows(f"InstructionThroughput/{name}", "fraction_of_peak")
        if cells:
            best = max(cells, key=lambda r: float(r["fraction_of_peak"]))
            fraction = float(best["fraction_of_peak"])
            yield Value(f"compute.{name}.fraction_of_peak", SECTION, f"{label} throughput", fraction, "of peak",
                        best.short_name + f" (best of {len(cells)} cells)",
                        f"{fraction:.1%} of peak, {float(best['tops']):.1f} T results/s", set_by="sm")
        else:
            yield Value.missing(f"compute.{name}.fraction_of_peak", SECTION, f"{label} throughput", "of peak")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_instruction_pipeline(rows):
    """A dependent chain is >= 2x slower per op than 8 independent chains (one warp) on the
    arithmetic pipes, and FP32 FMA reaches >= 95% of its peak somewhere in the ILP x warps sweep."""
    results = []
    # IMAD runs at half rate (64 per SM per clock on sm_80/sm_90): one warp's independent IMADs
    # take 2 cycles each, so its 4-cycle dependent chain can be at most ~2x slower.
    for op, least in (("ffma", 2.0), ("fadd", 2.0), ("dfma", 2.0), ("hfma2", 2.0), ("imad", 1.5)):
        latency = one(rows, f"InstructionLatency/{op}").get("cycles_per_op")
        ilp8 = one(rows, f"InstructionThroughput/{op}", ilp=8, warps=1).get("cycles_per_op_per_thread")
        if latency and ilp8:
            ratio = latency / ilp8
            results.append((f"InstructionLatency/{op} vs ilp:8", ratio >= least,
                            f"dependent {latency:.2f} vs independent {ilp8:.2f} cycles per op: {ratio:.2f}x "
                            f"(need >= {least}x)"))
    ffma = [c.get("fraction_of_peak", 0) for c in cases(rows, "InstructionThroughput/ffma")]
    if ffma:
        best = max(ffma)
        results.append(("InstructionThroughput/ffma best cell", 0.95 <= best <= 1.01, f"{best:.3f} of peak"))
    over = [(c.name, c["fraction_of_peak"]) for c in rows.values()
            if c.registered.startswith("InstructionThroughput/") and c.get("fraction_of_peak", 0) > 1.02]
    results.append(("no cell above its pipe's peak", not over, ", ".join(f"{n} {f:.2f}" for n, f in over) or "none"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_instruction_pipeline(rows)


# The timed-loop audit (analysis/cards/loop_rules.py): a latency chain's loop is its FMAs and loop control.
LOOP_RULES = {
    "ffma_chain": {"kernel": r"19instruction_latencyINS0_4FfmaE",
                   "sass": ({"FFMA"} | SASS_CONTROL, r"^FFMA\b"), "ptx": (("fma.rn.f32",) + PTX_CONTROL, "fma.rn.f32")},
    "dfma_chain": {"kernel": r"19instruction_latencyINS0_4DfmaE",
                   "sass": ({"DFMA"} | SASS_CONTROL, r"^DFMA\b"), "ptx": (("fma.rn.f64",) + PTX_CONTROL, "fma.rn.f64")},
}
