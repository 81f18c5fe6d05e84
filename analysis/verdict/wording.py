"""The verdict in words: one line per GPU and per node, and the card's table of limits, rendered from the verdict's
data (analysis/verdict/judge.py) and the layers' checks; nothing here decides anything."""
from analysis.verdict import links
from analysis.verdict.table import NAME_OF


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


def closest_text(checks):
    """"; closest to its limit: L2 read 2.1% inside (+-0.6%)" for a run that states its precision, else ""."""
    stated = [(margin(c), c) for c in checks if c["inside"] is True
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
    if c["layer"] == "own":  # a limit of the value's own says what it holds the value against
        return c.get("against") or "against its own SMs"
    return f"{c.get('layer_name') or c['layer']} {c['layer']} limit"


def outside_text(c):
    """"stream read (DRAM) 0.81 of theoretical (sm_90 architecture limit: at least 0.87)"."""
    detail = f": {c['detail']}" if c.get("detail") else ""
    return f"{c['label']} {c['value']:.4g} {c['unit']} ({layer_text(c)}: {limit_text(c)}{detail})"


def _listed(items, shown, more):
    return "; ".join(items[:shown]) + (more(len(items) - shown) if len(items) > shown else "")


def line(v):
    """One GPU's verdict (judge.decide's data) in one line, its health warnings after it."""
    warned = v.get("warnings") or []
    return values_line(v) + ("; warnings: " + "; ".join(f"{w['text']} ({w['code']})" for w in warned) if warned else "")


def values_line(v):
    code = v["code"]
    if code == "unhealthy":
        return "abnormal: health state: " + "; ".join(f"{f['text']} ({f['code']})" + (
            f" [planted; real reading {f['real']}]" if f.get("planted") and "real" in f else
            " [planted]" if f.get("planted") else "") for f in v["health"])
    if code == "wrong_result":
        return "wrong result: " + _listed(v["wrong"], 4, lambda n: f" (and {n} more)")
    outside = v.get("outside", [])
    if code == "busy":
        would = f"; {len(outside)} value(s) would have been outside their limits" if outside else ""
        return f"busy: other processes used the GPU ({v['busy']}); nothing judged{would}"
    if code == "cut_short":
        partial = f"; {len(outside)} value(s) outside so far, from a partial sweep" if outside else ""
        return (f"incomplete: the run was cut short ({v['cut_short']}){partial}" +
                (f"; {len(v['failed'])} row(s) failed" if v["failed"] else ""))
    if code == "outside_limit":
        names = sorted({layer_text(c).replace(" limit", "") for c in outside})
        return (f"abnormal: {len(outside)} of {v['judged']} values outside ({', '.join(names)}): " +
                "; ".join(outside_text(c) for c in outside[:6]) + (" ..." if len(outside) > 6 else "") +
                (f" (and {v['missing']} values missing)" if v["missing"] else ""))
    if code == "no_layer":
        within = f"; {v['counts']} values within" if v["counts"] else ""
        return (f"no limits for this GPU's architecture or SKU (analysis/verdict/reference_ranges.json){within}"
                + (" (its node's other GPUs are no limit of the kind)" if v["node"] else ""))
    if code == "other_method":
        return (f"no limits for this measurement method: the {v['names']} limits were made by another "
                f"({v['other_method']} values); make them with make_ranges.py (docs/verdicts.md)")
    if code == "own_families_only":
        return "no limits: the run's rows are of families gpubench has no rules for (a kernel of your own); nothing judged"
    if code == "no_value_limited":
        return f"no value of this run has a {v['names']} limit"
    if code == "values_missing":
        why = []
        if v["failed"]:
            why.append(f"{len(v['failed'])} row(s) failed: " + "; ".join(f"{r['row']} ({r['error']})"
                                                                        for r in v["failed"][:5])
                       + (" ..." if len(v["failed"]) > 5 else ""))
        if v["filtered"]:
            why.append(f"the run was filtered (--benchmark_filter={v['filtered']}; pass --subset to judge only what "
                       "ran)")
        labels = v["missing_labels"]
        shown = ", ".join(labels[:8]) + (", ..." if len(labels) > 8 else "")
        return (f"incomplete: {v['missing']} of {v['expected']} values missing" + (f": {shown}" if v["missing"]
                                                                                  else "")
                + ("; " + "; ".join(why) if why else ""))
    if v.get("preset") in ("burn", "memtest"):
        unlisted = "" if any(c.get("layer") == "sku" for c in v["checks"]) else "; no SKU limit lists its values"
        return (f"normal: the {v['preset']} preset's {v['limited']} checks within their limits ({v['counts']})"
                f"{unlisted}{closest_text(v['checks'])}")
    note = f" ({v['informational']} informational)" if v["informational"] else ""
    other = f"; {v['other_method']} measured by another method (no limit for it)" if v["other_method"] else ""
    part = f"; subset: {v['missing']} not measured, as asked" if v["missing"] else ""
    preset = f"; {v['not_in_preset']} limits of values this preset does not measure" if v["not_in_preset"] else ""
    if v.get("unlisted"):
        preset = (f"; the limits list no values of the {v['unlisted']} preset: the values it measured are judged, "
                  f"{v['not_in_preset']} limits of values it did not measure")
    return f"normal: {v['limited']} values within the {v['names']} limits{note} ({v['counts']})" \
           f"{other}{part}{preset}{closest_text(v['checks'])}"


def node_line(node):
    """The node's verdict (judge.node_verdict's data) in one line, naming each GPU that is not normal by index,
    UUID and PCI bus id, and each slow link or GPU of slow links."""
    named = [f"GPU {g['gpu'] if g['gpu'] is not None else 0} ({g['uuid'][:12]}, {g['pci_bus_id']}): "
             f"{NAME_OF[g['status']].replace('_', ' ')}" for g in node["gpus"] if g["status"] != node["normal"]]
    named += [f"link {f['link'][0]}->{f['link'][1]}: slow" if "link" in f else links.render(f)
              for f in node["links"]]
    named += [f"{f['text']} ({f['code']})" for f in node.get("health") or []]
    warned = node.get("warnings") or []
    return f"{NAME_OF[node['status']].replace('_', ' ')}: {len(node['gpus'])} GPU(s)" + (
        ": " + "; ".join(named) if named else ", every one normal, every link normal") + (
        "; warnings: " + "; ".join(w["text"] for w in warned) if warned else "")


def markdown(result):
    """The card's section of limits: every check of every layer, the values missing and those of another method."""
    names = ", ".join(f"{entry['name']} ({entry['layer']})" for entry in result["layers"]) or "no architecture or SKU"
    lines = ["", f"## Limits: {names}", ""]
    if not result["checks"] and not result["missing"]:
        return lines + ["No value of this run has a limit."]
    bad = [c for c in result["checks"] if c["inside"] is False]
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
