"""Is this GPU normal? Each GPU's card judged in layers, each keyed by what sets a value, and one verdict per GPU
and per node from the one table of verdicts (analysis/verdict/verdicts.json: name, exit status, action).

Layers (each limit names its layer and its source):
- architecture: what the SM sets (cycle latencies, per-clock rates, fractions of a pipe's peak) and fractions of
  the chip's own theoretical peaks, keyed by compute capability (one sm_90 table judges the H100, H200, H20 and
  GH200): a family declares which of its values these are (`set_by` of a card value, analysis/model/values.py);
- sku: absolute values of one product, matched by its exact name, where they are sharper;
- node: each GPU against the median of the run's other GPUs of its name, within the value's measured
  board-to-board spread (4 robust sigmas, at least NODE_FLOOR): one slow GPU is named on any SKU;
- own: the chip against itself (the per-SM map's worst SM against its median).

A run whose GPU another process used (at its start or its end) is `busy`: its values are not judged. A value no
layer has a limit for is not judged; a value a layer expects and the run lacks makes the run incomplete.
"""
import json
import os
import statistics

from analysis.verdict import links


from analysis.verdict import limits as ranges

TABLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verdicts.json")
with open(TABLE_PATH) as _f:
    TABLE = json.load(_f)
BY_NAME = {v["name"]: v for v in TABLE["verdicts"]}
ORDER = [v["name"] for v in TABLE["verdicts"]]  # most severe first
WRONG, BUSY, ABNORMAL, INCOMPLETE, NO_LIMITS, NORMAL = (BY_NAME[n]["exit"] for n in
                                                        ("wrong", "busy", "abnormal", "incomplete", "no_limits",
                                                         "normal"))
MISSING = BY_NAME["missing"]["exit"]
NAME_OF = {v["exit"]: v["name"] for v in TABLE["verdicts"]}

NODE_FLOOR = ranges.NODE_FLOOR  # the least distance from the node's median that is a fault
NODE_SIGMAS = 4.0
# Values that say more about the host, the run or the other GPUs than about this GPU: no layer judges them.
NOT_OF_THE_GPU = ("peer.", "mlp.host.", "energy.", "memory.by_sm.", "bandwidth.stream_read.claimed_vs",
                  "bandwidth.stream_copy.claimed_vs")
# Ratios of two of a GPU's own readings: the node layer leaves them to the others, since a fault in the denominator
# moves them the other way (a slow stream makes the chase "against the stream" look fast).
RATIO_UNITS = ("of the stream", "of cudaMemcpy", "of the read", "of the fastest", "of the median")


def action(status):
    """"drain", "keep" (a verdict's), or "" for an exit status that is no verdict."""
    name = NAME_OF.get(status)
    return BY_NAME[name]["action"] if name else ""


def worst(statuses):
    """The most severe verdict status of `statuses` (normal for none)."""
    known = [s for s in statuses if s in NAME_OF]
    return min(known, key=lambda s: ORDER.index(NAME_OF[s])) if known else NORMAL


def exit_help():
    """The exit statuses, one per line, for a script's --help."""
    return "; ".join(f"{v['exit']} {v['name'].replace('_', ' ')}" for v in sorted(TABLE["verdicts"],
                                                                                  key=lambda v: v["exit"]))


def of_the_gpu(key):
    return not key.startswith(NOT_OF_THE_GPU)


# --- the layers -------------------------------------------------------------------------------------------
def own_checks(values):
    """Checks of the values that carry a limit of their own (the chip against itself: the per-SM map)."""
    checks = []
    for v in values:
        if v.get("limit") and v["value"] is not None:
            limit = v["limit"]
            checks.append({"key": v["key"], "label": v["label"], "value": v["value"], "unit": v["unit"],
                           "better": v.get("better"), "low": limit.get("low"), "high": limit.get("high"),
                           "source": limit["source"], "count": None, "inside": ranges.judge(v, limit),
                           "layer": "own", "detail": v.get("text")})
    return checks


def layer_entries(context, limits):
    """[(layer, entry)] of the limits that apply to this GPU: its architecture's, then its SKU's."""
    found = []
    arch_key, arch = ranges.arch_of(context.get("gpu_compute_capability"), limits)
    if arch is not None:
        found.append(("architecture", dict(arch, key=arch_key)))
    sku_key, sku = ranges.sku_of(context.get("gpu_name"), limits)
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
                       "inside": ranges.judge(value, limit), "layer": layer, "layer_name": entry["name"],
                       "precision": value.get("precision")})
    return checks, missing, other, not_in_preset, unlisted


def check(values, context, limits, preset=None):
    """Every layer's checks of one GPU's card values (the node's come later, from node_checks):
    {"layers": [{"layer", "key", "name"}], "checks", "missing", "other_method", "not_in_preset", "unlisted"}.
    checks: key, label, value, unit, better, low, high, source, inside (None: informational), layer."""
    result = {"layers": [], "checks": own_checks(values), "missing": [], "other_method": [], "not_in_preset": 0,
              "unlisted": None}
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


def node_checks(cards, limits):
    """{gpu: [check]} of each GPU's values against the median of the run's other GPUs of its name (two GPUs or
    more). A value is outside when it is worse than that median, on its fault's side, by more than
    max(NODE_FLOOR, NODE_SIGMAS x its board-to-board spread, 2 x its rows' own spread)."""
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
                ref = statistics.median(others)
                if not ref:
                    continue
                sigma = board_spread(key, card.context, limits) or 0.0
                tolerance = max(NODE_FLOOR, NODE_SIGMAS * sigma, 2 * (v.get("spread") or 0.0))
                off = v["value"] / ref - 1
                inside = (off >= -tolerance if better == "higher" else off <= tolerance if better == "lower"
                          else abs(off) <= tolerance)
                brackets = [table[g][key]["bracket"] for g, _ in same if g != gpu and "bracket" in table[g].get(key, {})]
                if "bracket" in v and brackets:  # a capacity: a sweep resolves its edge to its grid; brackets must meet
                    low, high = min(b[0] for b in brackets), max(b[1] for b in brackets)
                    inside = v["bracket"][0] <= high and low <= v["bracket"][1]
                low = ref * (1 - tolerance) if better in ("higher", "exact") else None
                high = ref * (1 + tolerance) if better in ("lower", "exact") else None
                out[gpu].append({"key": key, "label": v["label"], "value": v["value"], "unit": v["unit"],
                                 "better": better, "low": low, "high": high, "inside": inside, "layer": "node",
                                 "count": len(others), "reference": ref, "off": off,
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


# --- the verdict ------------------------------------------------------------------------------------------
def outside(result):
    return [c for c in (result or {}).get("checks", []) if c["inside"] is False]


def margin(c):
    """How far a value is inside its one-sided limit, relative to the limit (0.02: 2% better than it; negative:
    outside), or None for a two-sided or missing limit."""
    better, low, high, value = c.get("better"), c.get("low"), c.get("high"), c.get("value")
    if value is None:
        return None
    if better == "higher" and low and high is None:
        return value / low - 1
    if better in ("lower", "spread") and high and low is None:
        return 1 - value / high
    return None


def near(result):
    """Checks inside a one-sided limit by less than the value's stated precision (the stopping rule's): a second
    measurement decides them before the verdict is given (measure_again)."""
    return [c for c in (result or {}).get("checks", []) if c["inside"] is True and c.get("precision") is not None
            and margin(c) is not None and margin(c) <= c["precision"]]


def closest_text(result):
    """"; closest to its limit: L2 read 2.1% inside (+-0.6%)" for a run that states its precision, else ""."""
    stated = [(margin(c), c) for c in (result or {}).get("checks", []) if c["inside"] is True
              and c.get("precision") is not None and margin(c) is not None]
    if not stated:
        return ""
    m, c = min(stated, key=lambda item: item[0])
    return f"; closest to its limit: {c['label']} {m:.1%} inside ({limit_text(c)}, value +-{c['precision']:.1%})"


def limit_text(c):
    """"at least 3.05e+12", "at most 290", "1.9-2.1"."""
    better, low, high = c.get("better"), c.get("low"), c.get("high")
    if better == "higher" and low is not None:
        return f"at least {low:.4g}"
    if better in ("lower", "spread") and high is not None:
        return f"at most {high:.4g}"
    if low is not None and high is not None:
        return f"{low:.4g}-{high:.4g}"
    return "-"


def layer_text(c):
    if c["layer"] == "node":
        return "against the node"
    if c["layer"] == "own":
        return "against its own SMs"
    return f"{c.get('layer_name') or c['layer']} {c['layer']} limit"


def outside_text(c):
    """"stream read (DRAM) 0.81 of theoretical (sm_90 architecture limit: at least 0.87)"."""
    detail = f": {c['detail']}" if c.get("detail") else ""
    return f"{c['label']} {c['value']:.4g} {c['unit']} ({layer_text(c)}: {limit_text(c)}{detail})"


def judge(result, failed_rows=(), subset=False, filtered=None, wrong=(), cut_short=None, busy=None):
    """(status, one line) of one GPU: wrong, busy, abnormal (a value outside any layer's limit), incomplete (values
    a layer expects are missing, rows failed, the run cut short), no limits (no layer but its own SMs), normal."""
    if wrong:
        return WRONG, "wrong result: " + "; ".join(wrong[:4]) + (f" (and {len(wrong) - 4} more)" if len(wrong) > 4
                                                                 else "")
    bad = outside(result)
    if busy:
        would = f"; {len(bad)} value(s) would have been outside their limits" if bad else ""
        return BUSY, f"busy: other processes used the GPU ({busy}); nothing judged{would}"
    judged = [c for c in result["checks"] if c["inside"] is not None]
    by_layer = {}
    for c in judged:
        by_layer.setdefault(c["layer"], []).append(c)
    layers = result["layers"]
    missing, failed = result["missing"], list(failed_rows)
    if cut_short:
        # A value read over a sweep cut short (the best of the rows that ran) is no value of the GPU: incomplete,
        # whatever it reads; the values it would have put outside are said.
        failed = [f for f in failed if f["error"] != "interrupted"]
        partial = f"; {len(bad)} value(s) outside so far, from a partial sweep" if bad else ""
        return INCOMPLETE, (f"incomplete: the run was cut short ({cut_short}){partial}" +
                            (f"; {len(failed)} row(s) failed" if failed else ""))
    if bad:
        names = sorted({layer_text(c).replace(" limit", "") for c in bad})
        return ABNORMAL, (f"abnormal: {len(bad)} of {len(judged)} values outside ({', '.join(names)}): " +
                          "; ".join(outside_text(c) for c in bad[:6]) + (" ..." if len(bad) > 6 else "") +
                          (f" (and {len(missing)} values missing)" if missing else ""))
    counts = ", ".join(f"{len(by_layer[layer])} {layer}" for layer in ("architecture", "sku", "node", "own")
                       if layer in by_layer)
    limited = [c for c in judged if c["layer"] in ("architecture", "sku")]
    if not layers:
        node = len(by_layer.get("node", []))
        within = f"; {counts} values within" if counts else ""
        return NO_LIMITS, (f"no limits for this GPU's architecture or SKU (analysis/verdict/reference_ranges.json){within}"
                           + (" (its node's other GPUs are no limit of the kind)" if node else ""))
    names = " and ".join(entry["name"] for entry in layers)
    if not limited and not missing and result["other_method"]:
        return NO_LIMITS, (f"no limits for this measurement method: the {names} limits were made by another "
                           f"({len(result['other_method'])} values); make them with make_ranges.py (docs/verdicts.md)")
    if not limited and not missing and not failed and not cut_short:
        return NO_LIMITS, f"no value of this run has a {names} limit"
    if result.get("unlisted") and not subset:
        return INCOMPLETE, (f"incomplete: the {names} limits do not say which values the {result['unlisted']} "
                            "preset measures (make_ranges.py with runs of it: docs/verdicts.md)")
    if (missing and not subset) or failed or cut_short:
        why = []
        if cut_short:
            why.append(f"the run was cut short ({cut_short})")
        if failed:
            why.append(f"{len(failed)} row(s) failed: " + "; ".join(f"{r['row']} ({r['error']})" for r in failed[:5])
                       + (" ..." if len(failed) > 5 else ""))
        if filtered:
            why.append(f"the run was filtered (--benchmark_filter={filtered}; pass --subset to judge only what ran)")
        labels = list(dict.fromkeys(m["label"] for m in missing))  # a rate and its per-clock twin share a label
        shown = ", ".join(labels[:8]) + (", ..." if len(labels) > 8 else "")
        expected = len(missing) + len({c["key"] for c in limited})
        return INCOMPLETE, (f"incomplete: {len(missing)} of {expected} values missing" + (f": {shown}" if missing
                                                                                           else "")
                            + ("; " + "; ".join(why) if why else ""))
    informational = len(result["checks"]) - len(judged)
    note = f" ({informational} informational)" if informational else ""
    other = f"; {len(result['other_method'])} measured by another method (no limit for it)" if result["other_method"] \
        else ""
    part = f"; subset: {len(missing)} not measured, as asked" if missing else ""
    preset = f"; {result['not_in_preset']} limits of values this preset does not measure" \
        if result.get("not_in_preset") else ""
    return NORMAL, f"normal: {len({c['key'] for c in limited})} values within the {names} limits{note} ({counts})" \
                   f"{other}{part}{preset}{closest_text(result)}"


def markdown(result):
    names = ", ".join(f"{entry['name']} ({entry['layer']})" for entry in result["layers"]) or "no architecture or SKU"
    lines = ["", f"## Limits: {names}", ""]
    if not result["checks"] and not result["missing"]:
        return lines + ["No value of this run has a limit."]
    bad = outside(result)
    judged = [c for c in result["checks"] if c["inside"] is not None]
    lines.append(f"{len(judged) - len(bad)} of {len(judged)} checks within their limits"
                 + (f"; **outside: {', '.join(c['label'] for c in bad)}**" if bad else "")
                 + (f"; {len(result['missing'])} expected values missing" if result["missing"] else "") + ".")
    lines += ["", "| quantity | value | layer | limit | verdict | source |", "|---|---|---|---|---|---|"]
    for c in result["checks"]:
        verdict_text = "informational" if c["inside"] is None else "inside" if c["inside"] else "**OUTSIDE**"
        lines.append(f"| {c['label']} | {c['value']:.4g} {c['unit']} | {c['layer']} | {limit_text(c)} | "
                     f"{verdict_text} | {c['source']} |")
    for m in result["missing"]:
        lines.append(f"| {m['label']} | not measured | {m['layer']} | - | **missing** | - |")
    for o in result["other_method"]:
        lines.append(f"| {o['label']} | - | {o['layer']} | - | no limit for method {o['method']} "
                     f"(limit: {o['limit_method']}) | - |")
    return lines


# --- a run of one or several GPUs -------------------------------------------------------------------------
def judge_cards(cards, limits, subset=False):
    """[(gpu, card, status, line)] of built cards [(gpu, card)]: each with its layers and its node's."""
    node = node_checks(cards, limits)
    judged = []
    for gpu, card in cards:
        card.ranges["checks"] += node.get(gpu, [])
        status, line = card.verdict(subset)
        judged.append((gpu, card, status, line))
    return judged


def node_line(judged, link_findings=()):
    """(status, line) of the node: its worst GPU's or link's status, naming each GPU that is not normal by index,
    UUID and PCI bus id, and each slow link or GPU of slow links (links.findings: data, never its rendered text)."""
    status = worst([s for *_, s, _ in judged] + ([ABNORMAL] if link_findings else []))
    named = [f"GPU {gpu if gpu is not None else 0} ({card.context.get('gpu_uuid', '?')[:12]}, "
             f"{card.context.get('gpu_pci_bus_id', '?')}): {NAME_OF[s].replace('_', ' ')}"
             for gpu, card, s, _ in judged if s not in (NORMAL,)]
    named += [f"link {f['link'][0]}->{f['link'][1]}: slow" if "link" in f else links.render(f) for f in link_findings]
    text = f"{NAME_OF[status].replace('_', ' ')}: {len(judged)} GPU(s)" + (": " + "; ".join(named) if named else
                                                                            ", every one normal, every link normal")
    return status, text
