"""RegisterBankConflict: what an FFMA costs when its three source registers sit in one register bank,
against the same FFMAs with the sources spread, one warp, no operand reuse
(docs/experiments/register_bank_conflict.md)."""
from analysis.model.values import Value
from analysis.cards.physics import one
from analysis.cards.loop_rules import PTX_CONTROL, SASS_CONTROL

FAMILIES = ("RegisterBankConflict",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_fma": "sm_clocks", "ns_per_fma": "sm_time"}

ORDER = 31
SECTION = "Compute"
PATTERNS = {"one_bank": "ffma_one_bank", "even": "ffma_even_registers", "spread": "ffma_spread"}
NOISE_CYCLES = 0.05  # per FFMA: less than this between patterns is no difference


def one_warp(report):
    """{pattern: row} for the one-warp rows of each bank pattern."""
    found = {}
    for key, name in PATTERNS.items():
        rows = report.rows(f"RegisterBankConflict/{name}", "cycles_per_fma", threads=32)
        if rows:
            found[key] = rows[0]
    return found


def bank_reading(cost_one, cost_even):
    """What the two costs say about the banks: the even-register pattern's sources differ mod 4 but
    not mod 2, so it conflicts only if banks go by register number mod 2."""
    if cost_one < NOISE_CYCLES:
        return "no cost measured for sources in one bank"
    if cost_even >= cost_one / 2:
        return "as slow: banks go by register number mod 2"
    return "as fast as spread: banks go by register number mod 4"


def card(report):
    rows = one_warp(report)
    label = "register bank conflict (FFMA, 1 warp)"
    if not {"one_bank", "spread"} <= rows.keys():
        yield Value.missing("compute.register_bank.conflict_cycles", SECTION, label, "cycles per FFMA")
        return
    one, spread = rows["one_bank"].value("cycles_per_fma"), rows["spread"].value("cycles_per_fma")
    cost_one = one - spread
    text = f"{one:.2f} cycles per FFMA with all three sources in one bank, {spread:.2f} spread ({cost_one:+.2f})"
    source = f"{rows['one_bank'].short_name}, {rows['spread'].short_name}"
    if "even" in rows:
        even = rows["even"].value("cycles_per_fma")
        text += f"; sources in even registers {even:.2f}, {bank_reading(cost_one, even - spread)}"
        source += f", {rows['even'].short_name}"
    yield Value("compute.register_bank.conflict_cycles", SECTION, label, cost_one, "cycles per FFMA", source, text,
                set_by="sm")


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_register_banks(rows):
    """No operand reuse: an FFMA reads its three sources from two banks, so it takes at least ~2 cycles
    (one warp); with its sources in one bank it takes longer still."""
    one_bank = one(rows, "RegisterBankConflict/ffma_one_bank", threads=32).get("cycles_per_fma")
    spread = one(rows, "RegisterBankConflict/ffma_spread", threads=32).get("cycles_per_fma")
    if not one_bank or not spread:
        return []
    return [("RegisterBankConflict spread FFMA without reuse", 1.7 <= spread <= 3.0, f"{spread:.2f} cycles per FFMA"),
            ("RegisterBankConflict one bank slower than spread", one_bank >= spread + 0.2,
             f"{one_bank:.2f} vs {spread:.2f} cycles per FFMA")]


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_register_banks(rows)


# The timed-loop audit (analysis/cards/loop_rules.py) of the FFMA kernels (kernels/compute/register_banks.cuh).
# Spread: each FFMA's registers (d, a, b, c) sit where the experiment placed them (residues mod 4 of c, a, b;
# c the destination) and no operand is marked .reuse. One bank and even registers: ptxas works against a
# conflict (it renames some accumulators to odd registers and pairs FFMAs for operand reuse), so the check is
# that at least half of the loop's FFMAs still read three registers from one bank (register number mod 2).
_FFMA_LOOP = {"sass": ({"FFMA"} | SASS_CONTROL, r"^FFMA\b"), "ptx": (("fma.rn.f32",) + PTX_CONTROL, "fma.rn.f32")}
LOOP_RULES = {
    "ffma_spread": {"kernel": r"19ffma_register_banksILi0ELi1ELi2E", "lanes": (0, 1, 2), **_FFMA_LOOP},
    "ffma_one_bank": {"kernel": r"19ffma_register_banksILi0ELi0ELi0E", "three_in_one_bank": 0.5, **_FFMA_LOOP},
    "ffma_even_registers": {"kernel": r"19ffma_register_banksILi0ELi2ELi0E", "three_in_one_bank": 0.5, **_FFMA_LOOP},
}
# Spread sources are not in one bank (SASS only: PTX has no register numbers).
LOOP_NEGATIVE = {"spread_as_one_bank": {"kernel": r"19ffma_register_banksILi0ELi1ELi2E", "rule": "ffma_one_bank",
                                        "kinds": ("sass",)}}
