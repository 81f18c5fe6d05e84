"""Reference ranges per SKU (analysis/reference_ranges.json): what a card value of a normal GPU of that SKU
falls within, each range with its source (our repeated runs, or a published figure with its citation).
A card marks each value it has a range for inside or outside; `card.py --check` makes that an exit status
(node acceptance)."""
import json
import os

RANGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_ranges.json")


def load(path=RANGES):
    with open(path) as f:
        return json.load(f)


def sku_of(gpu_name, ranges):
    """(key, entry) of the SKU whose longest `match` string the GPU's name contains, or (None, None)."""
    name = (gpu_name or "").lower()
    best = (None, None, 0)
    for key, entry in ranges["skus"].items():
        for text in entry["match"]:
            if text.lower() in name and len(text) > best[2]:
                best = (key, entry, len(text))
    return best[0], best[1]


def check(values, gpu_name, ranges=None):
    """{"sku", "version", "checks": [...]} for the card's values that have a range, or None when the SKU has
    none. A check: key, label, value, unit, low, high, source, inside."""
    ranges = ranges or load()
    key, entry = sku_of(gpu_name, ranges)
    if entry is None:
        return None
    checks = []
    for v in values:
        expected = entry["ranges"].get(v["key"])
        if expected is None or v["value"] is None:
            continue
        inside = expected["low"] <= v["value"] <= expected["high"]
        checks.append({"key": v["key"], "label": v["label"], "value": v["value"], "unit": v["unit"],
                       "low": expected["low"], "high": expected["high"], "source": expected["source"],
                       "inside": inside})
    return {"sku": key, "name": entry["name"], "version": ranges["version"], "checks": checks}


def outside(result):
    return [c for c in (result or {}).get("checks", []) if not c["inside"]]


def markdown(result):
    lines = ["", f"## Reference ranges ({result['name']}, ranges v{result['version']})", ""]
    if not result["checks"]:
        return lines + ["No value of this run has a range for this SKU."]
    bad = outside(result)
    lines.append(f"{len(result['checks']) - len(bad)} of {len(result['checks'])} values inside the SKU's range"
                 + (f"; **outside: {', '.join(c['label'] for c in bad)}**." if bad else "."))
    lines += ["", "| quantity | value | range | verdict | source |", "|---|---|---|---|---|"]
    for c in result["checks"]:
        verdict = "inside" if c["inside"] else "**OUTSIDE**"
        lines.append(f"| {c['label']} | {c['value']:.4g} {c['unit']} | {c['low']:.4g}-{c['high']:.4g} | {verdict} | "
                     f"{c['source']} |")
    return lines
