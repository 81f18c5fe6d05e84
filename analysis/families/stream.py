"""Stream: DRAM bandwidth of read, write, copy, scale, triad, the TMA's bulk copy and cudaMemcpyAsync,
each against the theoretical bandwidth and the copies against cudaMemcpy (docs/experiments/stream.md)."""
from analysis.values import Value

FAMILIES = ("Stream", "StreamCopy")
LEGACY = ("StreamCopy",)  # runs from before the Stream family (read for them, no longer registered)
ORDER = 50
SECTION = "Bandwidth"
OPS = (("read", "stream read (DRAM)"), ("write", "stream write (DRAM)"), ("copy", "stream copy (DRAM)"),
       ("scale", "stream scale (DRAM)"), ("triad", "stream triad (DRAM)"),
       ("copy_bulk", "stream copy by the TMA, cp.async.bulk (DRAM)"),
       ("memcpy", "cudaMemcpyAsync device to device (DRAM)"))


def dram_sized(rows, working_set=lambda r: float(r.get("working_set_bytes", 0))):
    """The rows of a streaming family that run from DRAM: a working set within 4x of the largest. (Stream's
    L2-sized rows are 256x smaller; its 2 GiB and 4 GiB arrays, grid-stride or claimed, all count.)"""
    largest = max((working_set(r) for r in rows), default=0)
    return [r for r in rows if working_set(r) * 4 >= largest]


def best_row(report, op="copy"):
    """The best DRAM-sized Stream/<op> row (a copy that fits L2 runs faster than any DRAM-bound chase
    could), whichever its schedule. Runs from before the Stream family have StreamCopy/Copy."""
    rows = report.rows(f"Stream/{op}", "bytes_per_second")
    if not rows and op == "copy":
        rows = report.rows("StreamCopy/Copy", "bytes_per_second")
    if not rows:
        return None
    return max(dram_sized(rows), key=lambda r: float(r["bytes_per_second"]))


def bandwidth(report, op="copy"):
    """bytes_per_second (read + written) of best_row."""
    row = best_row(report, op)
    return float(row["bytes_per_second"]) if row else None


def reference(report):
    """What many loads in flight should reach: the read-only stream (bytes read, as a chase reads), or in
    runs from before it, the copy (bytes read + written). Returns (bytes_per_second, label) or (None, None)."""
    for op, label in (("read", "read-only stream"), ("copy", "stream copy")):
        rate = bandwidth(report, op)
        if rate:
            return rate, label
    return None, None


def card(report):
    peak = float(report.context.get("gpu_dram_bandwidth_theoretical_gbs", 0) or 0) * 1e9
    rates = {}
    for op, label in OPS:
        row = best_row(report, op)
        key = f"bandwidth.stream_{op}"
        if not row:
            if op in ("read", "copy"):
                yield Value.missing(key + ".fraction", SECTION, label, "of theoretical")
            continue
        rate = rates[op] = float(row["bytes_per_second"])
        text = f"{rate / 1e12:.2f} TB/s read + written"
        if peak > 0:
            text += f", {rate / peak:.1%} of the theoretical {peak / 1e12:.2f} TB/s"
            yield Value(key + ".fraction", SECTION, label, rate / peak, "of theoretical", row.short_name, text)
        yield Value(key + ".bytes_per_second", SECTION, label + " rate", rate, "B/s", row.short_name)
    if "copy" in rates and "memcpy" in rates:
        yield Value("bandwidth.copy_vs_memcpy", SECTION, "stream copy against cudaMemcpy", rates["copy"] / rates["memcpy"],
                    "of cudaMemcpy", "Stream/copy, Stream/memcpy",
                    f"the copy kernel moves {rates['copy'] / rates['memcpy']:.1%} of cudaMemcpyAsync's bytes per second")
    if "copy_bulk" in rates and "memcpy" in rates:
        yield Value("bandwidth.copy_bulk_vs_memcpy", SECTION, "TMA bulk copy against cudaMemcpy",
                    rates["copy_bulk"] / rates["memcpy"], "of cudaMemcpy", "Stream/copy_bulk, Stream/memcpy",
                    f"the TMA copy moves {rates['copy_bulk'] / rates['memcpy']:.1%} of cudaMemcpyAsync's bytes per "
                    "second (the copy engines')")
    for op in ("read", "copy"):  # how much a fixed split of the work loses to the SMs' unequal rates
        by_schedule = {}
        for row in dram_sized(report.rows(f"Stream/{op}", "bytes_per_second")):
            claimed = row.args.get("claim_KiB", 0) > 0
            by_schedule[claimed] = max(by_schedule.get(claimed, 0.0), float(row["bytes_per_second"]))
        if len(by_schedule) == 2:
            gain = by_schedule[True] / by_schedule[False]
            yield Value(f"bandwidth.stream_{op}.claimed_vs_grid_stride", SECTION,
                        f"stream {op}: claimed tiles against grid-stride", gain, "x", f"Stream/{op} (claim_KiB 0 and > 0)",
                        f"best claimed {by_schedule[True] / 1e12:.2f} against best grid-stride "
                        f"{by_schedule[False] / 1e12:.2f} TB/s ({gain - 1:+.1%})")
