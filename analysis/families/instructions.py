"""InstructionLatency and InstructionThroughput: each instruction's dependent-chain latency and the best
fraction of its pipe's peak over the ILP x warps sweep (docs/experiments/instruction_*.md)."""
from analysis.values import Value

FAMILIES = ("InstructionLatency", "InstructionThroughput")
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
                        f"{float(row['cycles_per_op']):.2f} cycles, {float(row['ns_per_op']):.2f} ns")
        else:
            yield Value.missing(f"compute.{name}.latency_cycles", SECTION, f"{label} latency", "cycles")
        cells = report.rows(f"InstructionThroughput/{name}", "fraction_of_peak")
        if cells:
            best = max(cells, key=lambda r: float(r["fraction_of_peak"]))
            fraction = float(best["fraction_of_peak"])
            yield Value(f"compute.{name}.fraction_of_peak", SECTION, f"{label} throughput", fraction, "of peak",
                        best.short_name + f" (best of {len(cells)} cells)",
                        f"{fraction:.1%} of peak, {float(best['tops']):.1f} T results/s")
        else:
            yield Value.missing(f"compute.{name}.fraction_of_peak", SECTION, f"{label} throughput", "of peak")
