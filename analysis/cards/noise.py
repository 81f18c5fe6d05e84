"""compare.py's noise: every result a row reports belongs to a class of measurement that its family declares
(`NOISE` in its module of analysis/cards/families/: {quantity: class}, or `noise_class(row, quantity)`), and each class
has two calibrated floors, run to run on one board and board to board, that hold on any GPU (noise_model.json, made
from runs of identical code on several boards of more than one SKU). A result of no class is shown, never judged."""
import json
import math
import os

from analysis.cards import families
from analysis.model.row import per_clock, preset_key, result_name  # noqa: F401 (noise.result_name)

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "noise_model.json")
SAME_BOARD, CROSS_BOARD = "same_board", "cross_board"

CLASSES = {
    "sm_clocks": "a latency or rate inside the SM counted in its clocks: a dependent chain, a pipe's or tensor "
                 "core's issue rate, a fraction of a pipe's peak, shared-memory and DSMEM loads",
    "sm_time": "the same in nanoseconds or per second: it moves with the SM clock",
    "sm_placement": "a latency between two SMs of a cluster, or from the farthest SM to the L2: where the board's SMs "
                    "sit sets it, board by board",
    "memory_latency": "a load-to-use chase through the caches, DRAM or a peer's memory, on a plateau",
    "capacity_edge": "a chase at a point chosen on either side of a capacity edge (TLB reach, the L1 under a "
                     "carveout): where pages land moves it",
    "cache_bandwidth": "a stream from L1 or L2",
    "l2_partial_writes": "a kernel's rate on vectors held in the L2 (Normalize under 100% of it), its stores each "
                         "writing part of a sector: identical full runs moved it by up to 21%",
    "dram_partial_writes": "the same kernel's rate on vectors that spill to DRAM (Normalize at 100% of the L2 and "
                           "over): identical full runs moved it by up to 3.3%, past a DRAM stream's 2.2%",
    "dram_bandwidth": "a stream from or to DRAM (or a working set that spills to it)",
    "link_bandwidth": "a copy to or from another GPU",
    "host_link": "a copy between the GPU and pinned host memory over PCIe, the GPU alone on the host: the host's "
                 "memory and root complex move it from run to run",
    "host_shared": "the same while every GPU of the node copies at once: how the host shares itself moves it",
    "launch_time": "the time of a whole short kernel, its launch included",
    "short_launch": "a bandwidth timed by events over launches shorter than SHORT_LAUNCH_US: the launch's own "
                    "overheads, and the host's, are percents of it",
    "host": "a host row: the CPU and its memory, shared with whatever else runs there",
}
SHORT_LAUNCH_US = 50.0
TIMED_BY_EVENTS = ("dram_bandwidth", "cache_bandwidth", "link_bandwidth")
# Classes whose results move with where pages or SMs land: quiet runs on some boards do not make another board's quiet,
# so no result of theirs gets a floor below its class's (a 38 MiB chase on an H200 at two levels 2% apart; a Normalize
# L2 row with its own 0.7% moved 1.1-2.0% on two new boards, 2026-11-28-node-full).
PLACED = ("capacity_edge", "sm_placement", "l2_partial_writes", "dram_partial_writes")
# Classes compare shows and never judges, and whose results state no precision: what moves them is not the code. The
# verdict judges the host links (against the link's theoretical and the node's other GPUs); between identical node
# checks of four H100s (x4c) a copy at once moved 23% and alone 12-42%, as the host's memory and root complex shared.
NOT_JUDGED = {"host": "host rows: a shared host moves them by tens of percent between runs (shown, never judged)",
              "host_link": "a copy between host and GPU alone: the host moves it 12-42% between identical runs of a "
                           "lent host (shown, never judged; the verdict judges it against the link and the node)",
              "host_shared": "a copy between host and GPU with every GPU at once: how the host shares itself moves "
                             "it 23% between identical runs (shown, never judged)"}


def load(path=MODEL):
    with open(path) as f:
        model = json.load(f)
    unknown = set(model.get("classes", {})) - set(CLASSES)
    if unknown:
        raise ValueError(f"{path}: classes {', '.join(sorted(unknown))} are not declared in analysis/cards/noise.py")
    return model


_DECLARED = None


def declarations():
    """{family: module} of every family module."""
    global _DECLARED
    if _DECLARED is None:
        _DECLARED = {family: module for module in families.modules() for family in module.FAMILIES}
    return _DECLARED


TIME_SCALE_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def launch_us(row):
    """A row's time per iteration in microseconds (one timed launch), or None."""
    try:
        return float(row["real_time"]) * TIME_SCALE_US.get(row.get("time_unit", "ns"), 1e-3)
    except (KeyError, TypeError, ValueError):
        return None


# Classes a user declared for families gpubench has no module for (compare.py --class FAMILY[/QUANTITY]=CLASS): a
# kernel of one's own, measured through the installed package (docs/your-kernel.md).
_USER_CLASSES = {}


def declare_class(spec):
    """Takes "FAMILY=CLASS" (every result of the family) or "FAMILY/QUANTITY=CLASS"; ValueError naming what is wrong."""
    target, _, name = spec.partition("=")
    family, _, quantity = target.partition("/")
    if not family or not name:
        raise ValueError(f"--class {spec}: give FAMILY=CLASS or FAMILY/QUANTITY=CLASS")
    if name not in CLASSES:
        raise ValueError(f"--class {spec}: {name!r} is not a class; the classes: {', '.join(CLASSES)}")
    _USER_CLASSES[(family, quantity or None)] = name


def class_of(row, quantity, context=None):
    """The declared class of a row's result quantity, or None (not judged). A family may decide by the row and the
    GPU's context (`noise_class(row, quantity, context)`: a set at a capacity edge of this chip); a bandwidth timed
    over launches shorter than SHORT_LAUNCH_US is a short launch's, whatever its family. A family without a module
    has the class its user declared (declare_class), or none."""
    module = declarations().get(row.family)
    if module is None:
        family = (row.family or "").split("/gpu:")[0]
        declared = (row.get("gpubench") or {}).get("noise_class")  # the registration's (gpubench::noise_class)
        if isinstance(declared, dict):  # {"*": every result's, "quantity": its own}
            declared = declared.get(quantity) or declared.get("*")
        found = _USER_CLASSES.get((family, quantity)) or _USER_CLASSES.get((family, None)) or declared
    else:
        found = module.noise_class(row, quantity, context or {}) if hasattr(module, "noise_class") else None
        found = found or getattr(module, "NOISE", {}).get(quantity)
    if found in TIMED_BY_EVENTS:
        us = launch_us(row)
        if us is not None and us < SHORT_LAUNCH_US:
            return "short_launch"
    return found


def scope(uuid_before, uuid_after):
    """Run to run on one board, or board to board (also when a run does not say its board)."""
    return SAME_BOARD if uuid_before and uuid_before == uuid_after else CROSS_BOARD


# a result's own floor where it moves more than its class, or is known well enough for one below it (make_noise.py --rule)
ROW_FLOORS = "row_rule_floors"
ROW_FLOORS_CROSS = "row_rule_floors_cross_board"  # the same, board to board
ROW_WIDTHS = "row_rule_widths"  # a result's widest interval in the calibration runs, where above KNOWN_WIDTH_LEAST
# The rows (names without /gpu:N) the rule calibration measured in pairs: any other row's result gets the widest its
# class moved in that scope (`<scope>_largest`); an unseen H100's full pair claimed 13 of 8914 without (2026-11-28-edges).
RULE_ROWS = "rule_rows"
ROW_SIGMA = "row_repeat_sigma_by_gpu"  # {GPU name: {"row quantity": deviation}}: where a result moves more than its class
KNOWN_WIDTH_LEAST = 0.005


def known_width(model, result):
    """The widest relative interval `result` ("row quantity") had in the rule runs the model was made from, 0 when
    it stayed within KNOWN_WIDTH_LEAST or was not among them."""
    return model.get(ROW_WIDTHS, {}).get(result, 0.0)


_RULE_ROW_SETS = {}


def _rule_rows(model):
    rows = model.get(RULE_ROWS) or []
    if id(rows) not in _RULE_ROW_SETS:
        _RULE_ROW_SETS[id(rows)] = (rows, frozenset(rows))  # the list kept: its id stays its own
    return _RULE_ROW_SETS[id(rows)][1]


def floor(model, cls, where, rule=False, result=None, gpu_name=None):
    """The class's calibrated floor in this scope, or None when the model has none (the result is not judged).
    `rule`: both runs measured under the stopping rule, whose shorter runs move more from run to run (floors made
    from such runs, `<scope>_rule`; board to board at least the fixed-effort floor, made from more boards than the
    rule runs had). `result` ("row quantity", without /gpu:N): a result with a floor of its own (it moved more than
    its class in the calibration runs, or was seen in enough pairs on enough boards) keeps it on one board; board to
    board it only widens the class's. `gpu_name`: a placed result's floor on one board holds its SKU's PLACED_SIGMA."""
    entry = model.get("classes", {}).get(cls)
    if not entry:
        return None
    fixed = entry.get(where)
    ruled = entry.get(f"{where}_rule", entry.get(f"{SAME_BOARD}_rule") if where == CROSS_BOARD else None)
    if not rule or ruled is None or fixed is None:
        return fixed
    own = model.get(ROW_FLOORS, {}).get(result) if result else None
    if result and RULE_ROWS in model and result.rsplit(" ", 1)[0] not in _rule_rows(model):
        own = max(own or 0.0, ruled, entry.get(f"{where}_largest") or 0.0)  # a row no calibration pair measured
    if where != CROSS_BOARD and cls in PLACED:
        # Placement at an edge lands a set in one of two states run to run: a few rule pairs that saw one state set
        # no floor under the fixed-effort runs' (more runs, more boards), nor under the SKU's calibrated placement.
        placed = model.get(PLACED_SIGMA, {}).get(gpu_name, {})
        return max(ruled, fixed, own or 0.0, Z_CLAIM * math.sqrt(2) * max(placed.get(cls, 0.0), placed.get(result, 0.0)))
    if where != CROSS_BOARD:
        return ruled if own is None else own
    own_across = model.get(ROW_FLOORS_CROSS, {}).get(result, 0.0) if result else 0.0
    return max(fixed, ruled, own or 0.0, own_across)


Z95 = 1.96
# compare claims a change in a placed result only beyond Z_CLAIM x sqrt 2 of its deviations: 1 identical pair in 1,000
# goes that far by chance, where 1 in 20 passes its stated 95% interval (x2g's Normalize at 4x the L2: 7.4%, +-5.4%).
Z_CLAIM = 3.29
# The SM clock of a board steps between runs (an H100's between its 1980 and 1995 MHz bins): a result its class
# counts in SM clocks moves with it where it is read in time (a nanosecond, a rate per second), and a result of what
# the SM clock does not set (DRAM, a link: their own clocks) where it is read per SM clock. Such a result's stated
# precision adds the widest step seen between two runs of a board of its SKU (SM_CLOCK_STEP, made by make_noise.py
# --clock from the calibration runs' measured clocks): a step, not a spread, so it adds whole.
IN_SM_CLOCKS = ("sm_clocks", "sm_placement")
SM_CLOCK_FREE = ("dram_bandwidth", "link_bandwidth")
SM_CLOCK_STEP = "sm_clock_step_by_gpu"


def moves_with_the_sm_clock(cls, quantity):
    """Whether a result's run-to-run change has the SM clock's step in it beyond its class's (see SM_CLOCK_STEP)."""
    return (cls in IN_SM_CLOCKS and not per_clock(quantity)) or (cls in SM_CLOCK_FREE and per_clock(quantity))


def of_sku(model, key, gpu_name):
    """model[key]'s value for this SKU, else the largest calibrated (SM_CLOCK_STEP, HELD_CLOCK_SIGMA)."""
    found = model.get(key, {})
    return found.get(gpu_name, max(found.values(), default=0.0))


# {GPU name: deviation}: the run-to-run wander of the clock the power manager picks for a row it holds (clock_held),
# beyond its class's: on runs of a board, a tensor core's wgmma held at 1760-1815 MHz ran at another clock next run.
HELD_CLOCK_SIGMA = "held_clock_sigma_by_gpu"

# {class: deviation}: a class's run-to-run deviation between runs of a node (every GPU at once), where it is wider than
# a GPU's alone: its GPUs share the host, its power and its heat (a chase's ns moved 0.1-0.6% where alone 0.05%).
NODE_SIGMA = "node_repeat_sigma"
# {GPU name: {class or "row quantity": deviation}}: a placed class's (or result's) on that SKU's boards, where wider
PLACED_SIGMA = "placed_repeat_sigma_by_gpu"
# {preset: {class or preset_key: deviation}}: a class's in a preset's runs, where wider (an H100's full runs' cycle
# counts 5.3-5.9%); a link copy's or a family's results', where wider still (analysis/model/row.py preset_key)
PRESET_SIGMA = "preset_repeat_sigma"


def in_node(context):
    """Whether a run's GPU was measured with the node's other GPUs at once (gpubench --gpubench_device=all)."""
    return len([g for g in str(context.get("gpubench_devices") or "").split(",") if g.strip()]) > 1


def clock_held(row):
    """Whether a reason held the row's SM clock (NVML's clock-event reasons) or it ran under 97% of rated
    (clock_flagged): the power manager, not the board's top bin, chose it, and chooses again next run."""
    return bool(row.value("clock_reasons") or row.value("clock_flagged"))


def clock_headroom(row, context):
    """How far below the board's top SM clock a row ran (relative, 0 at or above it): a repeat may run it at the top.
    The top is the driver's maximum or the run's measured clock, whichever is higher (an H100 hot from a burn ran
    FP64 rows at 1956 MHz and, next run, at 1984: 1.4%, where the runs' median clocks were 0.06% apart). 0 for a row
    whose clock a reason held (NVML's clock-event reasons) or that ran under 97% of rated (clock_flagged: the card warns
    of it): the power cap holds a tensor core's wgmma at 1540-1710 MHz, run after run, where a headroom would state
    +-18%; the held clock's wander from run to run is HELD_CLOCK_SIGMA's."""
    if clock_held(row):
        return 0.0
    clock = row.value("sm_mhz")
    tops = []
    for key in ("gpu_sm_clock_mhz_max", "gpu_sm_clock_mhz_measured"):
        try:
            tops.append(float(context.get(key)))
        except (TypeError, ValueError):
            pass
    return max(0.0, max(tops) / clock - 1) if clock and tops and max(tops) > 0 else 0.0


def stated_of_row(model, row, quantity, context):
    """stated_half_width of one result of a row, as the card states it."""
    return stated_half_width(model, class_of(row, quantity, context), row.half_width(quantity), context.get("gpu_name"),
                             result_name(row.key, quantity), clock_headroom(row, context), clock_held(row),
                             in_node(context), context.get("gpubench_preset"))


def stated_half_width(model, cls, within, gpu_name=None, result=None, headroom=0.0, held=False, node=False,
                      preset=None):
    """The stated 95% precision of a result measured under the stopping rule, relative: the interval within which a
    repeated run of the same board falls 95% of the time (ISO 5725's repeatability limit, 1.96 x sqrt 2 standard
    uncertainties), from the run's own interval (`within`, what its samples know) and the class's calibrated
    run-to-run deviation (`repeat_sigma`: page placement, clocks, what no run sees of itself). None without
    `within`; `within` alone where the class has no calibration. `gpu_name`: the SKU's own deviation where the
    calibration had runs of it and it is wider. `headroom` (clock_headroom): how far below the board's top clock the
    row ran, added whole, like the clock's step, to a result that moves with the SM clock; `held` (clock_held): the
    power manager's wander of the clock it picks (HELD_CLOCK_SIGMA) added to such a result's deviation; `node`,
    `preset`: the class's (or result's) between runs of a node, or of that preset, where wider (NODE_SIGMA,
    PRESET_SIGMA); a placed class's on the SKU (PLACED_SIGMA). `result` ("row quantity", result_name): a result that
    moved more than its class on this SKU (a chase at a capacity edge, a row at two levels) states its own."""
    if within is None or cls in NOT_JUDGED:
        return None  # a class whose rows the host moves: no precision of the board's to state
    entry = (model.get("classes", {}).get(cls) or {}) if cls else {}
    # A SKU's own only widens the pooled one: two H200s' 0.019% left unseen H200s' L2 chases 28% outside (held-out).
    sku = entry.get("repeat_sigma_by_gpu", {}).get(gpu_name)
    own = model.get(ROW_SIGMA, {}).get(gpu_name, {}).get(result) if result else None
    placed, of_preset = model.get(PLACED_SIGMA, {}).get(gpu_name, {}), model.get(PRESET_SIGMA, {}).get(preset, {})
    wider = (model.get(NODE_SIGMA, {}).get(cls) if node else None, placed.get(cls), placed.get(result),
             of_preset.get(cls), of_preset.get(preset_key(result, cls)) if result else None)
    sigma = max((s for s in (entry.get("repeat_sigma"), sku, own, *wider) if s is not None), default=None)
    if sigma is None:
        return within
    moves = result and moves_with_the_sm_clock(cls, result.rsplit(" ", 1)[-1])
    # The headroom applies to every result the SM clock moves; the step to those whose class was calibrated in the
    # other unit (sm_time's deviation already holds the steps its calibration runs saw).
    step = (of_sku(model, SM_CLOCK_STEP, gpu_name) if moves else 0.0) + (headroom if moves or cls == "sm_time" else 0.0)
    if held and (moves or cls == "sm_time"):
        sigma = (sigma ** 2 + of_sku(model, HELD_CLOCK_SIGMA, gpu_name) ** 2) ** 0.5
    return Z95 * (2 * ((within / Z95) ** 2 + sigma ** 2)) ** 0.5 + step


def proven_fixed(model, family, counter):
    """Whether runs of identical code on several boards and SKUs kept this counter of this family fixed."""
    return counter in model.get("fixed", {}).get(family, [])
