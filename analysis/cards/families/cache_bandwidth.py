"""CacheBandwidth: read bandwidth of L1, L2 and DRAM from the plateaus of the working-set sweep
(docs/experiments/cache_bandwidth.md)."""
import math

from analysis.model.values import at_an_edge, Value, mean_rows, median

FAMILIES = ("CacheBandwidth",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "cache_bandwidth", "bytes_per_clock_per_sm": "cache_bandwidth"}


# A set every SM reads that is smaller than one 2 MiB page: which L2 slices hold its lines is where that page lands.
# On two identical full node runs of 4 H200s, 768 KiB read 63-70 bytes/clk/SM, moving 9% on two GPUs.
SHARED_WITHIN_A_PAGE = 2 << 20


def noise_class(row, quantity, context):
    """A set near this chip's L2 (all the SMs' sets together) reads as placement in the L2's partitions falls; so
    does a set all SMs share within one page."""
    size = row.value("working_set_bytes")
    if quantity in NOISE and size and at_an_edge(size, context, l1=None, l2=(0.25, 2.0)):
        return "capacity_edge"
    if quantity in NOISE and size and row.registered.endswith("/read_shared") and size < SHARED_WITHIN_A_PAGE:
        return "capacity_edge"
    return None

ORDER = 51
SECTION = "Bandwidth"


def plateaus(report):
    """L1, L2 and DRAM read bandwidth: the median of each plateau's rows, the plateaus placed by the GPU's
    L2 size in the context. L1: ld.ca sets of up to 128 KiB per SM (inside any Hopper/Ampere L1); L2: ld.cg
    (L1 bypassed) sets up to half of L2; DRAM: sets of at least twice L2. One set all SMs share: from an
    eighth to half of L2; a smaller shared set (2 MiB) stands apart, as the SMs' requests for the same lines merge
    before the L2 slices there (the SMs receive more than the slices read)."""
    l2 = float(report.context.get("gpu_l2_bytes", 0) or 0)
    rows = mean_rows(report.rows("CacheBandwidth", "bytes_per_second"))
    if not rows or l2 <= 0:
        return []
    cached = [r for r in rows if r["run_name"].startswith("CacheBandwidth/read/")]
    bypass = [r for r in rows if r["run_name"].startswith("CacheBandwidth/read_cg/")]
    shared = [r for r in rows if r["run_name"].startswith("CacheBandwidth/read_shared/")]
    # With both ways measured, each L2 figure is named for its data.
    private_l2 = "L2, data private to each SM" if shared else "L2"
    found = []
    # The small shared set is read at the quick preset's 2 MiB (the nearest set where that one did not run),
    # so a full sweep's smaller sets, where even more requests merge, do not change what the value means.
    shared_small = [r for r in shared if r["working_set_bytes"] < l2 / 8]
    shared_small = [min(shared_small, key=lambda r: abs(math.log2(r["working_set_bytes"] / SHARED_SMALL_SET)))
                    ] if shared_small else []
    for name, plateau in (("L1", [r for r in cached if r["args"].get("KiB_per_sm", 0) <= 128]),
                          (private_l2, [r for r in bypass if r["working_set_bytes"] <= l2 / 2]),
                          (SHARED, [r for r in shared if l2 / 8 <= r["working_set_bytes"] <= l2 / 2]),
                          (SHARED_SMALL, shared_small),
                          ("DRAM", [r for r in cached + bypass if r["working_set_bytes"] >= 2 * l2])):
        if plateau:
            level = {"name": name, "bytes_per_second": median(r["bytes_per_second"] for r in plateau),
                     "bytes_per_clock_per_sm": median(r.get("bytes_per_clock_per_sm", 0) for r in plateau),
                     "rows": sorted(r["run_name"] for r in plateau)}
            # The share of L2's read sectors that crossed between the two partitions (Hopper's fabric).
            fabric = [r["l2_fabric_sectors"] / (r["l2_read_bytes"] / 32) for r in plateau
                      if r.get("l2_fabric_sectors") is not None and r.get("l2_read_bytes")]
            if fabric:
                level["fabric_share"] = median(fabric)
            served = [r["l2_read_bytes"] / r["sm_received_read_bytes"] for r in plateau
                      if r.get("sm_received_read_bytes") and r.get("l2_read_bytes") is not None]
            if served:
                level["slices_served_share"] = median(served)
            merged = [r["l2_coalesced_read_sectors"] / (r["sm_received_read_bytes"] / 32) for r in plateau
                      if r.get("sm_received_read_bytes") and r.get("l2_coalesced_read_sectors") is not None]
            if merged:
                level["coalesced_share"] = median(merged)
            if name == SHARED_SMALL:
                level["working_set_bytes"] = plateau[0]["working_set_bytes"]
            found.append(level)
    return found


SHARED = "L2, one data set all SMs share"
SHARED_SMALL = "L2, one small data set all SMs share"
SHARED_SMALL_SET = 2 * 2**20
KEYS = {"L1": "l1", "L2": "l2", "L2, data private to each SM": "l2", SHARED: "l2_shared",
        SHARED_SMALL: "l2_shared_small", "DRAM": "dram"}


def card(report):
    found = plateaus(report)
    for level in found:
        key = "bandwidth." + KEYS[level["name"]]
        source = f"CacheBandwidth ({len(level['rows'])} rows)"
        if level["name"].startswith("L2, one"):
            source = f"CacheBandwidth/read_shared ({len(level['rows'])} rows)"
        if level["name"] == SHARED_SMALL:
            source = level["rows"][0].removesuffix("/manual_time")
        yield Value(key + ".bytes_per_second", SECTION, f"{level['name']} read bandwidth", level["bytes_per_second"],
                    "B/s", source)
        text = (f"{level['bytes_per_second'] / 1e12:.2f} TB/s, {level['bytes_per_clock_per_sm']:.1f} bytes per "
                "clock per SM")
        if level["name"] == SHARED_SMALL:
            text += f" at {level['working_set_bytes'] / 2**20:g} MiB"
        if "slices_served_share" in level and level["name"].startswith("L2"):
            text += f"; the L2 slices read {level['slices_served_share']:.0%} of the bytes the SMs received"
            if "coalesced_share" in level:
                text += f" (the L2 request coalescer merged {level['coalesced_share']:.0%} of their sectors)"
        if "fabric_share" in level and level["name"] != "L2":
            text += f"; {level['fabric_share']:.0%} of L2 read sectors crossed the partitions' fabric"
        yield Value(key + ".bytes_per_clock_per_sm", SECTION, f"{level['name']} read bandwidth",
                    level["bytes_per_clock_per_sm"], "B/clk/SM", source, text,
                    set_by="sm" if level["name"] == "L1" else "part")  # L2's per-SM share depends on the L2
    if not found:
        yield Value.missing("bandwidth.levels", SECTION, "L1 / L2 / DRAM read bandwidth by working set", "B/s")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_cache_bandwidth(report):
    """The bandwidth staircase: L1 > L2 > DRAM, and L1 at least half the load path's 128 bytes/clock/SM."""
    found = {KEYS[level["name"]]: level for level in plateaus(report)}
    if not {"l1", "l2", "dram"} <= found.keys():
        return []
    l1, l2, dram = (found[n]["bytes_per_second"] for n in ("l1", "l2", "dram"))
    per_sm = found["l1"]["bytes_per_clock_per_sm"]
    results = [("CacheBandwidth L1 > L2 > DRAM", l1 > 1.2 * l2 > 1.44 * dram,
                f"{l1 / 1e12:.2f} > {l2 / 1e12:.2f} > {dram / 1e12:.2f} TB/s"),
               ("CacheBandwidth L1 bytes per clock per SM", 64 <= per_sm <= 128, f"{per_sm:.1f} (load path: 128)")]
    if "l2_shared" in found:  # one set all SMs share: requests merge before the slices, so at least as fast
        shared = found["l2_shared"]["bytes_per_second"]
        results.append(("CacheBandwidth L2 shared set >= private", shared >= 0.95 * l2,
                        f"{shared / 1e12:.2f} vs {l2 / 1e12:.2f} TB/s"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_cache_bandwidth(report)
