"""Reference limits per SKU (analysis/reference_ranges.json): what a card value of a normal GPU of that SKU
can read, each limit with its source (pooled gpubench runs on several machines, made by make_ranges.py, or a
published figure with its citation), and the run-to-run noise of every row (compare.py's floor).

A limit is one-sided where only one side is a fault: a rate is abnormal only when low, a latency or a spread
over SMs only when high, a capacity only when different; values that depend on where the hardware placed the
work are informational. A limit made by one measurement method never judges a value of another ("no range
for this method"). The check knows which values the SKU's limits expect: a run that lacks some is
incomplete, not normal.
"""
import json
import os

RANGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_ranges.json")
VERSIONS = (1, 2)

# card.py --check's exit statuses (gpubench --gpubench_verdict moves them past its own: docs/verdicts.md).
NORMAL, ABNORMAL, BAD_INPUT, NO_LIMITS, INCOMPLETE = 0, 1, 2, 3, 4


def load(path=RANGES):
    with open(path) as f:
        table = json.load(f)
    if table.get("version") not in VERSIONS:
        raise ValueError(f"{path}: reference ranges version {table.get('version')}; this analysis reads "
                         f"{', '.join(map(str, VERSIONS))}")
    return table


def sku_of(gpu_name, ranges):
    """(key, entry) of the SKU whose longest `match` string the GPU's name contains, or (None, None)."""
    name = (gpu_name or "").lower()
    best = (None, None, 0)
    for key, entry in ranges["skus"].items():
        for text in entry["match"]:
            if text.lower() in name and len(text) > best[2]:
                best = (key, entry, len(text))
    return best[0], best[1]


def judge(value, limit):
    """True inside, False outside, None informational: the value against its limit, on the side that is a fault
    for its kind (the value's `better`, else the limit's)."""
    better = value.get("better") or limit.get("better") or "exact"
    low, high = limit.get("low"), limit.get("high")
    x = value["value"]
    if better == "info":
        return None
    if better == "higher":
        return low is None or x >= low
    if better in ("lower", "spread"):
        return high is None or x <= high
    if "bracket" in value and "bracket" in limit:  # a capacity: the sweeps' brackets must meet
        (a, b), (c, d) = value["bracket"], limit["bracket"]
        return a <= d and c <= b
    return (low is None or x >= low) and (high is None or x <= high)


def check(values, gpu_name, ranges=None):
    """{"sku", "name", "version", "checks", "missing", "other_method"} for a GPU of a SKU with limits, or None.
    checks: key, label, value, unit, better, low, high, source, inside (None: informational). missing: the
    limits' keys the card has no value for. other_method: values measured by another method than the limit's."""
    ranges = ranges or load()
    key, entry = sku_of(gpu_name, ranges)
    if entry is None:
        return None
    by_key = {v["key"]: v for v in values}
    checks, missing, other = [], [], []
    for name, limit in entry["ranges"].items():
        value = by_key.get(name)
        if value is None or value["value"] is None:
            missing.append({"key": name, "label": (value or {}).get("label") or limit.get("label") or name})
            continue
        if limit.get("method") and value.get("method") and limit["method"] != value["method"]:
            other.append({"key": name, "label": value["label"], "method": value["method"], "limit_method": limit["method"]})
            continue
        checks.append({"key": name, "label": value["label"], "value": value["value"], "unit": value["unit"],
                       "better": value.get("better") or limit.get("better"), "low": limit.get("low"),
                       "high": limit.get("high"), "source": limit["source"], "count": limit.get("count"),
                       "inside": judge(value, limit)})
    return {"sku": key, "name": entry["name"], "version": ranges["version"], "checks": checks, "missing": missing,
            "other_method": other}


def outside(result):
    return [c for c in (result or {}).get("checks", []) if c["inside"] is False]


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


def verdict(result, failed_rows=(), subset=False, filtered=None):
    """(status, one line) of the SKU check of one GPU: abnormal when a value is outside its limit; incomplete
    when values the limits expect are missing (rows failed, the run filtered or interrupted) unless `subset`
    (the user asked for a part only; failed rows still count); normal otherwise."""
    if not result:
        return NO_LIMITS, "no reference limits for this GPU (analysis/reference_ranges.json)"
    bad = outside(result)
    judged = [c for c in result["checks"] if c["inside"] is not None]
    informational = len(result["checks"]) - len(judged)
    missing = result["missing"]
    failed = list(failed_rows)
    if not judged and not missing and result["other_method"]:
        return NO_LIMITS, (f"no limits for this measurement method: the {result['name']} limits were made by another "
                           f"({len(result['other_method'])} values); make them with make_ranges.py (docs/verdicts.md)")
    if not judged and not missing:
        return NO_LIMITS, f"no value of this run has a {result['name']} limit"
    if bad:
        return ABNORMAL, (f"abnormal: {len(bad)} of {len(judged)} values outside the {result['name']} limits: " +
                          "; ".join(f"{c['label']} {c['value']:.4g} {c['unit']} ({limit_text(c)})" for c in bad) +
                          (f" (and {len(missing)} values missing)" if missing else ""))
    expected = len(missing) + len(result["checks"]) + len(result["other_method"])
    if (missing and not subset) or failed:
        why = []
        if failed:
            why.append(f"{len(failed)} row(s) failed: " + "; ".join(f"{r['row']} ({r['error']})" for r in failed[:5]) +
                       (" ..." if len(failed) > 5 else ""))
        if filtered:
            why.append(f"the run was filtered (--benchmark_filter={filtered}; pass --subset to judge only what ran)")
        labels = list(dict.fromkeys(m["label"] for m in missing))  # a rate and its per-clock twin share a label
        names = ", ".join(labels[:8]) + (", ..." if len(labels) > 8 else "")
        return INCOMPLETE, (f"incomplete: {len(missing)} of {expected} values missing" + (f": {names}" if missing else "")
                            + ("; " + "; ".join(why) if why else ""))
    note = f" ({informational} informational)" if informational else ""
    other = f"; {len(result['other_method'])} measured by another method (no limit for it)" if result["other_method"] else ""
    part = f"; subset: {len(missing)} of {expected} not measured, as asked" if missing else ""
    return NORMAL, f"normal: {len(judged)} values within the {result['name']} limits{note}{other}{part}"


def markdown(result):
    lines = ["", f"## Reference ranges ({result['name']}, ranges v{result['version']})", ""]
    if not result["checks"] and not result["missing"]:
        return lines + ["No value of this run has a range for this SKU."]
    bad = outside(result)
    judged = [c for c in result["checks"] if c["inside"] is not None]
    lines.append(f"{len(judged) - len(bad)} of {len(judged)} values within the SKU's limits"
                 + (f"; **outside: {', '.join(c['label'] for c in bad)}**" if bad else "")
                 + (f"; {len(result['missing'])} expected values missing" if result["missing"] else "") + ".")
    lines += ["", "| quantity | value | limit | verdict | source |", "|---|---|---|---|---|"]
    for c in result["checks"]:
        verdict_text = "informational" if c["inside"] is None else "inside" if c["inside"] else "**OUTSIDE**"
        lines.append(f"| {c['label']} | {c['value']:.4g} {c['unit']} | {limit_text(c)} | {verdict_text} | "
                     f"{c['source']} |")
    for m in result["missing"]:
        lines.append(f"| {m['label']} | not measured | - | **missing** | - |")
    for o in result["other_method"]:
        lines.append(f"| {o['label']} | - | - | no limit for method {o['method']} (limit: {o['limit_method']}) | - |")
    return lines


def unfixed(ranges, gpu_name):
    """"row|counter" keys of counters the catalog calls fixed that moved between runs of identical code."""
    _, entry = sku_of(gpu_name, ranges)
    return set(((entry or {}).get("noise") or {}).get("unfixed", []))
