"""The layers that judge one GPU's card values, each keyed by what sets a value (analysis/verdict/judge.py gives the
verdict from their checks):
- architecture: what the SM sets (cycle latencies, per-clock rates, fractions of a pipe's peak) and fractions of
  the chip's own theoretical peaks, keyed by compute capability (one sm_90 table judges the H100, H200, H20 and
  GH200): a family declares which of its values these are (`set_by` of a card value, analysis/model/values.py);
- sku: absolute values of one product, matched by its exact name, where they are sharper;
- node: each GPU against the median of the run's other GPUs of its name, within the value's measured
  board-to-board spread (limits.peer_tolerance): one slow GPU is named on any SKU;
- own: the chip against itself (the per-SM map's worst SM against its median).

A check is data: key, label, value, unit, better, low, high, source, inside (None: informational), layer.
"""
from analysis.verdict import limits as limit_table

# Values that say more about the host, the run or the other GPUs than about this GPU: no layer judges them.
NOT_OF_THE_GPU = ("peer.", "mlp.host.", "energy.", "memory.by_sm.", "bandwidth.stream_read.claimed_vs",
                  "bandwidth.stream_copy.claimed_vs")
# Ratios of two of a GPU's own readings: the node layer leaves them to the others, since a fault in the denominator
# moves them the other way (a slow stream makes the chase "against the stream" look fast).
RATIO_UNITS = ("of the stream", "of cudaMemcpy", "of the read", "of the fastest", "of the median")


def of_the_gpu(key):
    return not key.startswith(NOT_OF_THE_GPU)


def own_checks(values):
    """Checks of the values that carry a limit of their own (the chip against itself: the per-SM map)."""
    checks = []
    for v in values:
        if v.get("limit") and v["value"] is not None:
            limit = v["limit"]
            checks.append({"key": v["key"], "label": v["label"], "value": v["value"], "unit": v["unit"],
                           "better": v.get("better"), "low": limit.get("low"), "high": limit.get("high"),
                           "source": limit["source"], "count": None, "inside": limit_table.judge(v, limit),
                           "layer": "own", "detail": v.get("text"), "against": limit.get("against")})
    return checks


def layer_entries(context, limits):
    """[(layer, entry)] of the limits that apply to this GPU: its architecture's, then its SKU's."""
    found = []
    arch_key, arch = limit_table.arch_of(context.get("gpu_compute_capability"), limits)
    if arch is not None:
        found.append(("architecture", dict(arch, key=arch_key)))
    sku_key, sku = limit_table.sku_of(context.get("gpu_name"), limits)
    if sku is not None:
        found.append(("sku", dict(sku, key=sku_key)))
    return found


def check_layer(layer, entry, values, preset):
    """(checks, missing, other_method, not_in_preset, unlisted) of one layer's limits against the card's values."""
    by_key = {v["key"]: v for v in values}
    methods_now = {v["method"].split("@")[0]: v["method"] for v in values if v.get("method")}  # module -> method
    listed = entry.get("expected") or {}
    expected = set(listed[preset]) if preset in listed else None
    unlisted = preset if listed and expected is None else None
    checks, missing, other, not_in_preset = [], [], [], 0
    for name, limit in entry["ranges"].items():
        value = by_key.get(name)
        label = (value or {}).get("label") or limit.get("label") or name
        if value is None or value["value"] is None:
            now = methods_now.get(str(limit.get("method")).split("@")[0])
            if limit.get("method") and methods_now and now != limit["method"]:
                # A limit made by another method (or a card rule no module has now) expects nothing of this code.
                other.append({"key": name, "label": label, "method": now or "none", "limit_method": limit["method"],
                              "layer": layer})
                continue
            if (expected is not None and name not in expected) or unlisted:
                not_in_preset += 1
                continue
            missing.append({"key": name, "label": label, "layer": layer})
            continue
        if limit.get("method") and value.get("method") and limit["method"] != value["method"]:
            other.append({"key": name, "label": label, "method": value["method"], "limit_method": limit["method"],
                          "layer": layer})
            continue
        checks.append({"key": name, "label": value["label"], "value": value["value"], "unit": value["unit"],
                       "better": value.get("better") or limit.get("better"), "low": limit.get("low"),
                       "high": limit.get("high"), "source": limit["source"], "count": limit.get("count"),
                       "inside": limit_table.judge(value, limit), "layer": layer, "layer_name": entry["name"],
                       "precision": value.get("precision")})
    return checks, missing, other, not_in_preset, unlisted


def check(values, context, limits, preset=None):
    """Every layer's checks of one GPU's card values (the node's come later, from node_checks):
    {"layers": [{"layer", "key", "name"}], "checks", "missing", "other_method", "not_in_preset", "unlisted"}.
    checks: key, label, value, unit, better, low, high, source, inside (None: informational), layer."""
    result = {"layers": [], "checks": own_checks(values), "missing": [], "other_method": [], "not_in_preset": 0,
              "unlisted": None, "preset": preset}
    missing = {}
    for layer, entry in layer_entries(context, limits):
        checks, lacking, other, not_in_preset, unlisted = check_layer(layer, entry, values, preset)
        result["layers"].append({"layer": layer, "key": entry["key"], "name": entry["name"]})
        result["checks"] += checks
        for m in lacking:
            missing.setdefault(m["key"], m)
        result["other_method"] += other
        result["not_in_preset"] += not_in_preset
        result["unlisted"] = result["unlisted"] or unlisted
    result["missing"] = list(missing.values())
    return result


def board_spread(key, context, limits):
    """The value's measured board-to-board spread, relative (robust sigma / median of the calibration boards),
    from the architecture's or the SKU's limits; None where neither measured it."""
    found = []
    for _, entry in layer_entries(context, limits):
        limit = entry["ranges"].get(key)
        if limit and limit.get("median"):
            found.append(abs(limit.get("robust_sigma", 0.0) / limit["median"]))
    return max(found) if found else None


def seen_range(key, context, limits):
    """How far apart two healthy boards may read the value, relative to their median: the range the calibration's n
    boards read it in (the SKU's limits' or the architecture's), widened at each end by the mean gap between n
    ordered readings (range / (n - 1)): a board outside the n seen lies there with probability 2 / (n + 1), 9% of
    new boards for 22. 0 where no limit keeps a range."""
    found = [0.0]
    for _, entry in layer_entries(context, limits):
        ranges = entry["ranges"]
        for limit in [ranges[key]] if key in ranges else [ranges[k] for k in argument_siblings(key, ranges)]:
            seen = limit.get("seen")
            if seen and limit.get("median"):
                boards = max(int(limit.get("boards") or 2), 2)
                found.append(abs((seen[1] - seen[0]) / limit["median"]) * (1 + 2 / (boards - 1)))
    return max(found)


def argument_siblings(key, ranges):
    """Keys of `ranges` that name the same measurement as `key` at another value of its trailing argument
    (memory.cluster.dsmem_latency_6: _2, _4, _8, _16). A value the calibration never read (the full preset's cluster
    of 6) spreads board to board as its measured arguments do, not by the bare floor: which SMs share a GPC moves
    every cluster size's DSMEM latency together (x2c, 2026-11-28-two-gpu-full-pair: GPU-710d2f97 3.5-5.1% above its
    node's other board at clusters of 3 to 8, both runs alike)."""
    stem, _, argument = key.rpartition("_")
    if not stem or not argument.isdigit():
        return []
    return [k for k in ranges if k != key and k.rpartition("_")[0] == stem and k.rpartition("_")[2].isdigit()]


def node_checks(cards, limits):
    """{gpu: [check]} of each GPU's values against the median of the run's other GPUs of its name (two GPUs or
    more). A value is outside when it is worse than that median, on its fault's side, by more than
    limits.peer_tolerance: at least NODE_FLOOR, 4 sigmas of its board-to-board spread, twice its rows' spread."""
    by_name = {}
    for gpu, card in cards:
        by_name.setdefault(card.context.get("gpu_name"), []).append((gpu, card))
    out = {gpu: [] for gpu, _ in cards}
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        table = {gpu: {v["key"]: v for v in card.values if v["value"] is not None} for gpu, card in same}
        for gpu, card in same:
            for key, v in table[gpu].items():
                better = v.get("better")
                if not of_the_gpu(key) or v.get("limit") or better not in ("higher", "lower", "exact") \
                        or v.get("unit") in RATIO_UNITS:
                    continue
                others = [table[g][key]["value"] for g, _ in same if g != gpu and key in table[g]]
                if not others:
                    continue
                # A family may state its own (the burn's rate: gpu-fryer's 10%); otherwise the calibrated rule's.
                tolerance = v.get("node_tolerance") or limit_table.peer_tolerance(
                    board_spread(key, card.context, limits) or 0.0, v.get("spread") or 0.0,
                    seen_range(key, card.context, limits))
                # Outside only where proven: beyond the tolerance by more than the value's own uncertainty.
                guard = limit_table.guard(v) / abs(v["value"]) if v["value"] else 0.0
                inside, ref, off = limit_table.against_peers(v["value"], others, better, tolerance + guard)
                if not ref:
                    continue
                brackets = [table[g][key]["bracket"] for g, _ in same if g != gpu and "bracket" in table[g].get(key, {})]
                if "bracket" in v and brackets:  # a capacity: a sweep resolves its edge to its grid; brackets must meet
                    low, high = min(b[0] for b in brackets), max(b[1] for b in brackets)
                    inside = v["bracket"][0] <= high and low <= v["bracket"][1]
                low = ref * (1 - tolerance) if better in ("higher", "exact") else None
                high = ref * (1 + tolerance) if better in ("lower", "exact") else None
                out[gpu].append({"key": key, "label": v["label"], "value": v["value"], "unit": v["unit"],
                                 "better": better, "low": low, "high": high, "inside": inside, "layer": "node",
                                 "count": len(others), "reference": ref, "off": off, "tolerance": tolerance,
                                 "guard": guard,
                                 "source": f"median of the node's {len(others)} other {name} GPU(s), "
                                           f"tolerance {tolerance:.1%}"})
    return out


def busy_text(context):
    """What other processes used the GPU at the run's start, during it (sampled) or at its end, or None."""
    seen = []
    for when, key in (("at the start", "gpubench_other_gpu_processes"),
                      ("during the run", "gpubench_other_gpu_processes_during"),
                      ("at the end", "gpubench_other_gpu_processes_end")):
        text = str(context.get(key) or "").strip()
        if text and text != "none" and not text.startswith("unknown"):
            seen.append(f"{when} {text}")
    return "; ".join(seen) or None
