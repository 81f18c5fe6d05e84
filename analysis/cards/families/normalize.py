"""Normalize: the seed homework's kernels at d_l 8, g 8: instructions per element and their best time
(docs/experiments/normalize.md)."""
from analysis.model.values import Value

FAMILIES = ("Normalize",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "dram_bandwidth"}


def noise_class(row, quantity, context):
    """Vectors that fit in the L2 (l2_pct under 100) are read from it, not from DRAM, and written back to it in parts
    of sectors: between identical full runs of three H100s they moved by a median 0.8% and up to 21.5%, past the 5.1%
    floor of an L2 stream (docs/results/2026-11-28-placement). Vectors that spill to DRAM are written in parts of
    sectors too: up to 3.3%, past a DRAM stream's 2.2% (docs/results/2026-11-28-held-out)."""
    if quantity not in NOISE:
        return None
    return "l2_partial_writes" if float(row.args.get("l2_pct", 100)) < 100 else "dram_partial_writes"

ORDER = 80
SECTION = "A kernel under the microscope: Normalize"
VARIANTS = [("Normalize/base", {"dl": 8}, "base (a thread per vector)", "base"),
            ("Normalize/grouped", {"dl": 8, "g": 8, "u": 1}, "grouped, g 8", "u1"),
            ("Normalize/grouped", {"dl": 8, "g": 8, "u": 2}, "grouped, g 8, unrolled 2", "u2"),
            ("Normalize/grouped", {"dl": 8, "g": 8, "u": 4}, "grouped, g 8, unrolled 4", "u4")]


def card(report):
    for registered, args, label, key in VARIANTS:
        rows = report.rows(registered, "insn_per_element", **args)
        if not rows:
            yield Value.missing(f"normalize.{key}.insn_per_element", SECTION, label, "instructions per element")
            continue
        fastest = min(rows, key=lambda r: float(r["real_time"]))
        yield Value(f"normalize.{key}.insn_per_element", SECTION, label, float(fastest["insn_per_element"]),
                    "instructions per element", fastest.short_name,
                    f"{float(fastest['insn_per_element']):.1f} instructions per element; fastest at "
                    f"{int(fastest.args['warps'])} warps per block, {float(fastest['real_time']) / 1e3:.1f} us",
                    set_by="sm")  # the compiler's instructions for the architecture
