"""Stream: DRAM bandwidth of read, write, copy, scale, triad, the TMA's bulk copy and cudaMemcpyAsync,
each against the theoretical bandwidth and the copies against cudaMemcpy (docs/experiments/stream.md)."""
from analysis.model.values import Value
from analysis.cards.physics import cases, near

FAMILIES = ("Stream", "StreamCopy")
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "dram_bandwidth", "bytes_per_clock_per_sm": "dram_bandwidth", "fraction_of_peak": "dram_bandwidth"}

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
            # A DRAM read's fraction of the chip's own theoretical peak is the memory's, on any part (H100 0.948,
            # H200 0.950); copies depend on the memory's write turnaround (0.900 and 0.859): the SKU's.
            yield Value(key + ".fraction", SECTION, label, rate / peak, "of theoretical", row.short_name, text,
                        set_by="chip" if op == "read" else "part")
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


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def dram_stream_rows(rows, op):
    """The Stream/<op> rows far beyond L2 (dram_sized: within 4x of the largest set)."""
    ops = [(c.name, c) for c in cases(rows, f"Stream/{op}") if "working_set_bytes" in c]
    return dict(dram_sized(ops, lambda item: item[1]["working_set_bytes"]))


def check_stream(rows):
    """Streams far beyond L2 move each byte once through DRAM; the read reaches a good share of the
    theoretical bandwidth (80% here, a wide margin) and the copy kernel is close to cudaMemcpy (within 10%)."""
    results = []
    for op in ("read", "write", "copy", "scale", "triad"):
        for name, counters in sorted(dram_stream_rows(rows, op).items()):
            for direction in ("read", "write"):
                key = f"dram_{direction}_normalized"
                if key in counters:
                    results.append(near(f"{name} DRAM {direction}", counters[key], 1.0, 0.05, "x the ideal bytes"))
    reads = dram_stream_rows(rows, "read")
    if reads:
        best = max(c.get("fraction_of_peak", 0) for c in reads.values())
        results.append(("Stream/read best fraction of peak", 0.8 <= best <= 1.0, f"{best:.3f} of theoretical"))
    copy = max((c["bytes_per_second"] for c in dram_stream_rows(rows, "copy").values()), default=None)
    memcpy = max((c["bytes_per_second"] for c in dram_stream_rows(rows, "memcpy").values()), default=None)
    if copy and memcpy:
        results.append(("Stream/copy against Stream/memcpy", 0.9 <= copy / memcpy <= 1.1,
                        f"{copy / 1e12:.2f} vs {memcpy / 1e12:.2f} TB/s ({copy / memcpy:.1%})"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_stream(rows)
