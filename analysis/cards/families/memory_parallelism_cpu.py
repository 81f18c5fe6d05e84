"""MemoryParallelismCPU: the host's chases against its own plain read (seed 002's host side)."""
from analysis.model.values import Value, mean_rows, short

FAMILIES = ("MemoryParallelismCPU",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "host", "ns_per_load_per_chain": "host", "ns_per_load": "host"}

ORDER = 62
SECTION = "Memory-level parallelism"


def best(report):
    """The host chase's best row and the host's best plain read (both bytes_per_second), or None."""
    chases = mean_rows(report.rows("MemoryParallelismCPU/chase", "bytes_per_second"))
    reads = mean_rows(report.rows("MemoryParallelismCPU/read", "bytes_per_second"))
    return (max(chases, key=lambda r: r["bytes_per_second"]) if chases else None,
            max((r["bytes_per_second"] for r in reads), default=None))


def card(report):
    host, read = best(report)
    if host and read:
        yield Value("mlp.host.fraction_of_read", SECTION, "host chases against the host's read",
                    host["bytes_per_second"] / read, "of the read", short(host["run_name"]),
                    f"{host['bytes_per_second'] / 1e9:.2f} GB/s with {host['loads_in_flight']:.0f} lines in flight, "
                    f"{host['bytes_per_second'] / read:.1%} of {read / 1e9:.1f} GB/s")
    else:
        yield Value.missing("mlp.host.fraction_of_read", SECTION, "host chases against the host's read", "of the read")
