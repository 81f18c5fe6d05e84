"""MemoryParallelism: many independent chases over all SMs against the read-only stream (Little's law;
docs/experiments/memory_parallelism.md)."""
from analysis.families import stream
from analysis.values import Value, mean_rows, short

FAMILIES = ("MemoryParallelism",)
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
