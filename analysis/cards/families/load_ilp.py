"""LoadILP: one warp's bandwidth with 1 and up to 16 independent loads in flight per thread, and the
latency Little's law implies (docs/experiments/load_ilp.md)."""
from analysis.cards.families import pointer_chase
from analysis.model.values import Value, mean_rows
from analysis.cards.physics import one

FAMILIES = ("LoadILP",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "dram_bandwidth", "bytes_per_clock_per_sm": "dram_bandwidth", "fraction_of_peak": "dram_bandwidth"}

ORDER = 61
SECTION = "Memory-level parallelism"


def card(report):
    scalar = {r["args"]["loads"]: r for r in mean_rows(report.rows("LoadILP/scalar", "bytes_per_second"))
              if r["args"].get("warps") == 1}
    if 1 not in scalar or len(scalar) < 2:
        yield Value.missing("mlp.juggler.speedup", SECTION, "one warp's loads in flight (LoadILP)", "x")
        return
    most = max(scalar)
    speedup = scalar[most]["bytes_per_second"] / scalar[1]["bytes_per_second"]
    dram = {level["name"]: level for level in pointer_chase.level_table(report, "PointerChase/direct", 128)}.get("DRAM")
    text = (f"one warp: {scalar[1]['bytes_per_second'] / 1e9:.2f} GB/s with 1 load in flight per thread, "
            f"{scalar[most]['bytes_per_second'] / 1e9:.2f} GB/s with {most} ({speedup:.1f}x)")
    yield Value("mlp.juggler.speedup", SECTION, f"one warp, {most} loads in flight against 1 (LoadILP)", speedup, "x",
                f"LoadILP/scalar/loads:1..{most}/warps:1 ({len(scalar)} rows)", text, better="higher")
    latency = scalar[1]["littles_law_ns"]
    text = f"{latency:.0f} ns per load by Little's law at 1 load in flight"
    if dram:
        text += f"; the dependent chase's DRAM load-to-use latency: {dram['ns']:.0f} ns"
    yield Value("mlp.juggler.littles_law_ns", SECTION, "streaming load latency (Little's law)", latency, "ns",
                "LoadILP/scalar/loads:1/warps:1", text)


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_load_ilp(rows):
    """One warp: 16 independent loads in flight move at least 4x the bytes of one (Little's law)."""
    single = one(rows, "LoadILP/scalar", loads=1, warps=1).get("bytes_per_second")
    sixteen = one(rows, "LoadILP/scalar", loads=16, warps=1).get("bytes_per_second")
    if not single or not sixteen:
        return []
    return [("LoadILP 16 loads against 1", sixteen >= 4 * single, f"{sixteen / single:.1f}x ({single / 1e9:.2f} -> "
                                                                  f"{sixteen / 1e9:.2f} GB/s)")]


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_load_ilp(rows)
