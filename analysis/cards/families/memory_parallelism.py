"""MemoryParallelism: many independent chases over all SMs against the read-only stream (Little's law;
docs/experiments/memory_parallelism.md)."""
from analysis.cards.families import stream
from analysis.model.values import Value, mean_rows, short

FAMILIES = ("MemoryParallelism",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_step": "memory_latency", "ns_per_step": "memory_latency", "bytes_per_second": "dram_bandwidth"}

ORDER = 60
SECTION = "Memory-level parallelism"


def whole_gpu(report):
    """The whole-GPU chase rows (repetitions averaged) and the best of them (compare with stream.reference)."""
    rows = mean_rows(report.rows("MemoryParallelism/gpu", "bytes_per_second"))
    return rows, (max(rows, key=lambda r: r["bytes_per_second"]) if rows else None)


def card(report):
    _, best = whole_gpu(report)
    rate, label = stream.reference(report)
    if best and rate:
        yield Value("mlp.gpu.fraction_of_stream", SECTION, f"GPU chases against the {label}",
                    best["bytes_per_second"] / rate, "of the stream", short(best["run_name"]),
                    f"{best['bytes_per_second'] / 1e12:.2f} TB/s with {best['loads_in_flight']:.0f} lines in flight, "
                    f"{best['bytes_per_second'] / rate:.1%} of the DRAM-sized {label}")
    else:
        yield Value.missing("mlp.gpu.fraction_of_stream", SECTION, "GPU chases against the read-only stream",
                            "of the stream")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_memory_parallelism(report):
    """Enough chains in flight reach at least 80% of what the read-only stream moves (Little's law)."""
    _, best = whole_gpu(report)
    reference, label = stream.reference(report)  # as the card reads it
    if not best or not reference:
        return []
    rate = best["bytes_per_second"]
    return [(f"MemoryParallelism reaches the {label}", rate >= 0.8 * reference,
             f"{rate / 1e12:.2f} TB/s ({best['run_name']}) = {rate / reference:.1%} of {reference / 1e12:.2f} TB/s")]


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_memory_parallelism(report)
