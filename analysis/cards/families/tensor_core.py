"""TensorCore: per precision, what one mma.sync and one wgmma cost (latency) and the best rate each
reached as a fraction of the architecture's dense peak at the measured clock; wgmma's scaling with N;
zero against random operands, with the clock each ran at (docs/experiments/tensor_core.md)."""
from analysis.model import values
from analysis.model.values import Value
from analysis.cards.physics import cases, one
from analysis.cards.loop_rules import SASS_CONTROL

FAMILIES = ("TensorCore",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_mma": "sm_clocks", "cycles_per_wgmma": "sm_clocks", "tensor_ops_per_clock_per_sm": "sm_clocks",
         "fraction_of_peak": "sm_clocks", "ns_per_mma": "sm_time", "ns_per_wgmma": "sm_time", "tensor_tops": "sm_time"}

ORDER = 32
SECTION = "Tensor cores"
MMA_SYNC = ("f16_f32", "f16_f16", "bf16_f32", "tf32_f32", "e4m3_f32", "e5m2_f32", "s8_s32", "f64_f64",
            "f64_f64_m16n8k16")
WGMMA = ("f16_f32_ss", "f16_f32_rs", "bf16_f32_ss", "tf32_f32_ss", "e4m3_f32_ss", "e5m2_f32_ss", "s8_s32_ss")
NEAR_PEAK = 0.95  # the N-scaling's answer: the smallest N whose best row reaches this


def best(rows):
    """The row with the highest rate (fraction of peak where known, else ops per clock)."""
    rows = [r for r in rows if r.value("tensor_ops_per_clock_per_sm") is not None]
    if not rows:
        return None
    return max(rows, key=lambda r: (r.value("fraction_of_peak", 0.0), r.value("tensor_ops_per_clock_per_sm")))


def precision(row):
    """The row's precision ("s8_s32"): its string axis; runs from before 2026-11-25 carry none, and their
    registered name ends in it (TensorCore/mma_sync_s8_s32, TensorCore/wgmma_s8_s32_ss)."""
    if "precision" in row.args:
        return row.args["precision"]
    legacy = row.registered.split("/", 1)[-1]
    for head in ("mma_sync_", "wgmma_latency_", "wgmma_"):
        if legacy.startswith(head):
            return legacy[len(head):]
    return legacy


def rate_text(row):
    ops = row.value("tensor_ops_per_clock_per_sm")
    unit = "TOPS" if precision(row).startswith("s8") else "TFLOPS"  # integer ops, not FLOPs
    text = f"{ops:,.0f} ops/clk/SM"
    if row.value("fraction_of_peak") is not None:
        text += f" = {row.value('fraction_of_peak'):.1%} of peak"
    return text + f" ({row.value('tensor_tops'):,.0f} {unit} at {row.value('sm_mhz'):.0f} MHz)"


def not_run(report, registered, key, label):
    return values.not_run(report, registered, key, SECTION, label, "fraction of peak")


def mma_sync_values(report):
    for name in MMA_SYNC:
        key, label = f"compute.tensor.mma_sync.{name}", f"mma.sync {name}"
        rows = report.rows(f"TensorCore/mma_sync_{name}", "tensor_ops_per_clock_per_sm", operands=1)
        top = best(rows)
        if top is None:
            yield not_run(report, f"TensorCore/mma_sync_{name}", key, label)
            continue
        latency = [r for r in rows if r.args.get("chains") == 1 and r.args.get("warps") == 1]
        text = f"{latency[0].value('cycles_per_mma'):.1f} cycles per mma (one warp's chain); " if latency else ""
        text += f"best {rate_text(top)} with {top.args['chains']} chains x {top.args['warps']} warps per SM"
        source = ", ".join(r.short_name for r in latency[:1] + [top])
        yield Value(key, SECTION, label, top.value("fraction_of_peak"), "fraction of peak", source, text, set_by="sm")


def wgmma_values(report):
    for name in WGMMA:
        key, label = f"compute.tensor.wgmma.{name}", f"wgmma {name}"
        top = best(report.rows(f"TensorCore/wgmma_{name}", "tensor_ops_per_clock_per_sm", operands=1))
        if top is None:
            yield not_run(report, f"TensorCore/wgmma_{name}", key, label)
            continue
        latency = report.rows(f"TensorCore/wgmma_latency_{name}", "cycles_per_wgmma", n=top.args["n"])
        text = (f"{latency[0].value('cycles_per_wgmma'):.0f} cycles from issue to wait (N = {top.args['n']}); "
                if latency else "")
        text += f"best {rate_text(top)}, N = {top.args['n']}, {top.args['warpgroups']} warpgroup(s) per SM"
        source = ", ".join(r.short_name for r in latency[:1] + [top])
        yield Value(key, SECTION, label, top.value("fraction_of_peak"), "fraction of peak", source, text, set_by="sm")


def n_scaling(report):
    """FP16 wgmma (A and B in shared memory): the best rate and the latency at each N."""
    key, label = "compute.tensor.wgmma.n_near_peak", "wgmma FP16 by N"
    by_n = {}
    for row in report.rows("TensorCore/wgmma_f16_f32_ss", "fraction_of_peak", operands=1):
        if row.args["n"] not in by_n or row.value("fraction_of_peak") > by_n[row.args["n"]].value("fraction_of_peak"):
            by_n[row.args["n"]] = row
    if len(by_n) < 2:
        yield Value.missing(key, SECTION, label, "N")
        return
    latency = {r.args["n"]: r.value("cycles_per_wgmma")
               for r in report.rows("TensorCore/wgmma_latency_f16_f32_ss", "cycles_per_wgmma")}
    parts = []
    for n in sorted(by_n):
        part = f"N {n}: {by_n[n].value('fraction_of_peak'):.0%}"
        if n in latency:
            part += f" ({latency[n]:.0f} cycles)"
        parts.append(part)
    near = [n for n in sorted(by_n) if by_n[n].value("fraction_of_peak") >= NEAR_PEAK]
    text = "; ".join(parts) + " of peak (latency)"
    text += f"; {near[0]} is the smallest N at {NEAR_PEAK:.0%}" if near else f"; no N reached {NEAR_PEAK:.0%}"
    source = "TensorCore/wgmma_f16_f32_ss, TensorCore/wgmma_latency_f16_f32_ss"
    yield Value(key, SECTION, label, float(near[0]) if near else None, "N", source, text, set_by="sm")


def zeros_vs_random(report):
    """The same rows with zero and random operands: the data-dependent clock (power) drop."""
    for name in ("f16_f32_ss", "e4m3_f32_ss"):
        key, label = f"compute.tensor.wgmma.{name}.random_over_zero", f"wgmma {name}, random / zero operands"
        pairs = []
        for random_row in report.rows(f"TensorCore/wgmma_{name}", "tensor_tops", operands=1):
            zero = report.rows(f"TensorCore/wgmma_{name}", "tensor_tops", operands=0, n=random_row.args["n"],
                               warpgroups=random_row.args["warpgroups"])
            if zero:
                pairs.append((random_row, zero[0]))
        if not pairs:
            yield Value.missing(key, SECTION, label, "x")
            continue
        random_row, zero = max(pairs, key=lambda p: p[0].args["n"] * 10 + p[0].args["warpgroups"])
        ratio = random_row.value("tensor_tops") / zero.value("tensor_tops")
        text = (f"random {random_row.value('tensor_tops'):,.0f} T/s at {random_row.value('sm_mhz'):.0f} MHz, "
                f"zeros {zero.value('tensor_tops'):,.0f} T/s at {zero.value('sm_mhz'):.0f} MHz "
                f"(both {random_row.value('fraction_of_peak', 0):.1%} / {zero.value('fraction_of_peak', 0):.1%} "
                f"of peak at their clocks): x{ratio:.3f}")
        yield Value(key, SECTION, label, ratio, "x", f"{random_row.short_name}, {zero.short_name}", text)


def card(report):
    yield from wgmma_values(report)
    yield from n_scaling(report)
    yield from zeros_vs_random(report)
    yield from mma_sync_values(report)


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_tensor_cores(rows):
    """No row beats the architecture's tensor peak by more than the timing's noise (2%); the hardware's
    operation count equals the rows' own (2 per multiply-add); wgmma at N = 256 reaches 90% of peak;
    a dependent mma.sync chain takes 10-100 cycles per instruction; zero operands run no slower than
    random ones."""
    results = []
    ops_counters = [k for k in ("tensor_ops_f16", "tensor_ops_bf16", "tensor_ops_tf32", "tensor_ops_fp8",
                                "tensor_ops_s8", "tensor_ops_f64")]
    for counters in sorted(rows.values(), key=lambda c: c.name):
        if not counters.registered.startswith("TensorCore/") or "fraction_of_peak" not in counters:
            continue
        name, fraction = counters.name, counters["fraction_of_peak"]
        results.append((name + " under peak", fraction <= 1.02, f"{fraction:.3f} of peak"))
        counted = next((counters[k] for k in ops_counters if k in counters), None)
        if counted and "tensor_tops" in counters:
            ours = counters["tensor_ops_per_clock_per_sm"] * counters["cycles"]  # per SM per launch
            sms = counted / ours
            results.append((name + " ops counted", abs(sms - round(sms)) < 0.01 * sms,
                            f"hardware ops / the row's ops per SM = {sms:.3f} SMs"))
        if counters.registered.startswith("TensorCore/wgmma_") and counters.args.get("n") == 256 \
                and "latency" not in counters.registered:
            results.append((name + " near peak", fraction >= 0.9, f"{fraction:.3f} of peak (>= 0.9)"))
    for counters in cases(rows, "TensorCore/mma_sync_f16_f32", chains=1, warps=1):
        cycles = counters["cycles_per_mma"]
        results.append((counters.name + " latency", 10 <= cycles <= 100, f"{cycles:.1f} cycles per mma"))
    for zero in [c for c in rows.values() if c.registered.startswith("TensorCore/wgmma_") and c.args.get("operands") == 0]:
        random = one(rows, zero.registered, n=zero.args["n"], warpgroups=zero.args["warpgroups"], operands=1)
        if random:
            results.append((zero.name + " no slower than random", zero["tensor_tops"] >= 0.98 * random["tensor_tops"],
                            f"{zero['tensor_tops']:.0f} vs {random['tensor_tops']:.0f} T/s"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_tensor_cores(rows)


# The timed-loop audit (analysis/cards/loop_rules.py) of kernels/compute/mma_sync.cuh and wgmma.cuh: each timed loop
# holds the matrix instruction of its precision and loop control; wgmma loops also the warpgroup fence
# (WARPGROUP.ARRIVE) and the wait (WARPGROUP.DEPBAR). A precision that compiled to another path (conversions,
# FFMA) fails. SASS only: PTX names the instruction the source wrote, not what runs. wgmma rules need sm_90a
# code. Uniform-datapath instructions (ptxas rebuilds the shared-memory descriptors in uniform registers each
# iteration; they issue beside the vector pipes) and the uniform loop compare may sit in the loops too.
_TENSOR_SASS = {"HMMA", "IMMA", "DMMA", "QMMA", "HGMMA", "QGMMA", "IGMMA", "WARPGROUP"} | SASS_CONTROL
_UNIFORM_SASS = {"S2UR", "R2UR", "UMOV", "ULEA", "ULOP3", "USHF", "UISETP", "PLOP3"}
LOOP_RULES = {
    rule: {"kernel": kernel, "sass": (_TENSOR_SASS | _UNIFORM_SASS, required),
           **({"arch": "sm_90a"} if rule.startswith("wgmma") else {}),
           # Hopper has no FP8 mma.sync: ptxas converts to FP16 and issues HMMA (its rows skip there, saying so).
           **({"not_arch": "sm_90a"} if rule in ("mma_e4m3_f32", "mma_e5m2_f32") else {})}
    for rule, kernel, required in (
        ("mma_f16_f32", r"13mma_sync_loopINS0_9MmaF16F32E", r"^HMMA\.16816\.F32(?!\.BF16)\b"),
        ("mma_f16_f16", r"13mma_sync_loopINS0_9MmaF16F16E", r"^HMMA\.16816\.F16\b"),
        ("mma_bf16_f32", r"13mma_sync_loopINS0_10MmaBf16F32E", r"^HMMA\.16816\.F32\.BF16\b"),
        ("mma_tf32_f32", r"13mma_sync_loopINS0_10MmaTf32F32E", r"^HMMA\.1688\.F32\.TF32\b"),
        ("mma_e4m3_f32", r"13mma_sync_loopINS0_10MmaE4m3F32E", r"^[HQ]MMA\.\S*E4M3"),
        ("mma_e5m2_f32", r"13mma_sync_loopINS0_10MmaE5m2F32E", r"^[HQ]MMA\.\S*E5M2"),
        ("mma_s8_s32", r"13mma_sync_loopINS0_8MmaS8S32E", r"^IMMA\.16832\.S8\.S8\b"),
        ("mma_f64_f64", r"13mma_sync_loopINS0_9MmaF64F64E", r"^DMMA\.8x8x4\b"),
        ("mma_f64_m16n8k16", r"13mma_sync_loopINS0_14MmaF64M16n8k16E", r"^DMMA\.16x8x16\b"),
        ("wgmma_f16_f32", r"10wgmma_loopINS0_11WgmmaF16F32E", r"^HGMMA\.64x\d+x16\.F32(?!\.BF16)\b"),
        ("wgmma_bf16_f32", r"10wgmma_loopINS0_12WgmmaBf16F32E", r"^HGMMA\.64x\d+x16\.F32\.BF16\b"),
        ("wgmma_tf32_f32", r"10wgmma_loopINS0_12WgmmaTf32F32E", r"^HGMMA\.64x\d+x8\.F32\.TF32\b"),
        ("wgmma_e4m3_f32", r"10wgmma_loopINS0_12WgmmaE4m3F32E", r"^QGMMA\.64x\d+x32\.F32\.E4M3\.E4M3\b"),
        ("wgmma_e5m2_f32", r"10wgmma_loopINS0_12WgmmaE5m2F32E", r"^QGMMA\.64x\d+x32\.F32\.E5M2\.E5M2\b"),
        ("wgmma_s8_s32", r"10wgmma_loopINS0_10WgmmaS8S32E", r"^IGMMA\.64x\d+x32\.S8\.S8\b"))
}
LOOP_NEGATIVE = {
    # A loop of FFMAs is not a matrix loop (SASS only).
    "fma_as_mma": {"kernel": r"19instruction_latencyINS0_4FfmaE", "rule": "mma_f16_f32"},
    # FP8 mma.sync on Hopper: FP16 HMMA after conversions, with the product hoisted out of the loop.
    "emulated_fp8_mma": {"kernel": r"13mma_sync_loopINS0_10MmaE4m3F32ELi1E", "rule": "mma_e4m3_f32", "arch": "sm_90a"},
}
