"""The reference limits (analysis/verdict/reference_ranges.json): per architecture (keyed by compute capability: what the
SM sets, and fractions of the chip's own peaks) and per SKU (absolute values, matched by the GPU's exact name),
each limit with its method, count, boards, median and source. analysis/verdict/judge.py judges with them;
make_ranges.py makes them.

A limit is one-sided where only one side is a fault: a rate is abnormal only when low, a latency or a spread
over SMs only when high, a capacity only when different; values that depend on where the hardware placed the
work are informational.
"""
import json
import os
import statistics

NODE_FLOOR = 0.04  # the least distance from a median that is a fault: the node layer, the links, the limits made
NODE_SIGMAS = 4.0  # a value's board-to-board spread (robust sigmas) that is still no fault

RANGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_ranges.json")
VERSIONS = (3,)


def default_path():
    """The limits a tool reads when none is named: $GPUBENCH_RANGES, else the shipped file."""
    return os.environ.get("GPUBENCH_RANGES") or RANGES


def load(path=None):
    path = path or default_path()
    with open(path) as f:
        table = json.load(f)
    if table.get("version") not in VERSIONS:
        raise ValueError(f"{path}: reference ranges version {table.get('version')}; this analysis reads "
                         f"{', '.join(map(str, VERSIONS))}")
    table.setdefault("architectures", {})
    table.setdefault("skus", {})
    return table


def sku_of(gpu_name, limits):
    """(key, entry) of the SKU one of whose `names` is the GPU's name exactly (as the driver reports it), or
    (None, None). Exact: "NVIDIA H100 80GB HBM3" is not "NVIDIA H100 80GB HBM3 (MIG 1g.10gb)"."""
    for key, entry in (limits or {}).get("skus", {}).items():
        if gpu_name and gpu_name in entry.get("names", ()):
            return key, entry
    return None, None


def arch_key(compute_capability):
    """"sm_90" of "9.0", or None."""
    text = str(compute_capability or "")
    major, _, minor = text.partition(".")
    return f"sm_{major}{minor or '0'}" if major.isdigit() else None


def arch_of(compute_capability, limits):
    """(key, entry) of the architecture's limits of a GPU of this compute capability, or (None, None)."""
    key = arch_key(compute_capability)
    entry = (limits or {}).get("architectures", {}).get(key) if key else None
    return (key, entry) if entry else (None, None)


def guard(value):
    """The value's expanded uncertainty as one reading (absolute): its stated precision is the 95% range of a repeated
    run, 1.96 x sqrt 2 deviations, so one reading's is that over sqrt 2; 0 where the run states none."""
    precision = value.get("precision")
    return abs(value["value"]) * precision / 2 ** 0.5 if precision else 0.0


def judge(value, limit):
    """True inside, False outside, None informational: the value against its limit, on the side that is a fault
    for its kind (the value's `better`, else the limit's). Outside only where proven (ISO 14253-1's rule for proving
    nonconformance): beyond the limit by more than the value's own uncertainty (guard): a healthy board's value
    known to +-4% is not a fault 1.6% past a limit, and a value a fault moves further still is."""
    better = value.get("better") or limit.get("better") or "exact"
    low, high = limit.get("low"), limit.get("high")
    x = value["value"]
    if better == "info":
        return None
    u = guard(value)
    if better == "higher":
        return low is None or x + u >= low
    if better in ("lower", "spread"):
        return high is None or x - u <= high
    if "bracket" in value and "bracket" in limit:  # a capacity: the sweeps' brackets must meet
        (a, b), (c, d) = value["bracket"], limit["bracket"]
        return a <= d and c <= b
    return (low is None or x >= low) and (high is None or x <= high)


def peer_tolerance(board_sigma=0.0, own_spread=0.0, seen_range=0.0):
    """How far from its peers' median a value may lie on its fault's side: the node rule, one place for the node
    layer, the links and the fleet. At least NODE_FLOOR, NODE_SIGMAS x its board-to-board spread, twice its rows'
    own spread, and the range healthy boards of its SKU were read in (`seen_range`, relative: a value at two levels
    board by board has a small robust spread and healthy boards a level apart)."""
    return max(NODE_FLOOR, NODE_SIGMAS * board_sigma, 2 * own_spread, seen_range)


def against_peers(value, peers, better, tolerance):
    """(inside, median of `peers`, relative distance from it) of a value against its peers (the node's other GPUs or
    links, the fleet's GPUs of its name): outside only on its fault's side (`better`: higher, lower, else both)."""
    reference = statistics.median(peers)
    off = value / reference - 1 if reference else 0.0
    inside = (off >= -tolerance if better == "higher" else off <= tolerance if better == "lower"
              else abs(off) <= tolerance)
    return inside, reference, off
