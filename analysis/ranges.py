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
NORMAL, ABNORMAL, BAD_INPUT, NO_LIMITS, INCOMPLETE, WRONG = 0, 1, 2, 3, 4, 5


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


def own_checks(values):
    """Checks of the values that carry a limit of their own (the chip against itself: the per-SM map)."""
    checks = []
    for v in values:
        if v.get("limit") and v["value"] is not None:
            limit = v["limit"]
            checks.append({"key": v["key"], "label": v["label"], "value": v["value"], "unit": v["unit"],
                           "better": v.get("better"), "low": limit.get("low"), "high": limit.get("high"),
                           "source": limit["source"], "count": None, "inside": judge(v, limit), "own": True,
                           "detail": v.get("text")})
    return checks


def check(values, gpu_name, ranges=None, preset=None):
    """{"sku", "name", "version", "checks", "missing", "other_method", "not_in_preset"} for a GPU, or None when
    neither its SKU has limits nor a value has its own. checks: key, label, value, unit, better, low, high,
    source, inside (None: informational), values with their own limit first. missing: the limits' keys the card
    has no value for that the run's `preset` measures (every key, where the limits do not say what each preset
    measures); not_in_preset: those it does not. other_method: values measured by another method than the
    limit's. unlisted: the limits list other presets' values but not this one's."""
    ranges = ranges or load()
    key, entry = sku_of(gpu_name, ranges)
    own = own_checks(values)
    if entry is None:
        if not own:
            return None
        return {"sku": None, "name": "its own SMs", "version": ranges["version"], "checks": own, "missing": [],
                "other_method": [], "not_in_preset": 0, "unlisted": None}
    by_key = {v["key"]: v for v in values}
    methods_now = {v["method"].split("@")[0]: v["method"] for v in values if v.get("method")}  # module -> its method
    listed = entry.get("expected") or {}
    expected = set(listed[preset]) if preset in listed else None
    unlisted = preset if listed and expected is None else None
    checks, missing, other, not_in_preset = list(own), [], [], 0
    for name, limit in entry["ranges"].items():
        value = by_key.get(name)
        if value is None or value["value"] is None:
            now = methods_now.get(str(limit.get("method")).split("@")[0])
            if limit.get("method") and methods_now and now != limit["method"]:
                # A limit made by another method (or by a card rule no module has now) expects nothing of this code:
                # a value it would never judge is not missing.
                other.append({"key": name, "label": (value or {}).get("label") or limit.get("label") or name,
                              "method": now or "none", "limit_method": limit["method"]})
                continue
            if (expected is not None and name not in expected) or unlisted:
                not_in_preset += 1
                continue
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
            "other_method": other, "not_in_preset": not_in_preset, "unlisted": unlisted}


def outside(result):
    return [c for c in (result or {}).get("checks", []) if c["inside"] is False]


def outside_text(c):
    """"FP32 FMA rate, SMs measured 131 SMs (132-132: not measured: SM 17 ...)"."""
    detail = f": {c['detail']}" if c.get("detail") else ""
    return f"{c['label']} {c['value']:.4g} {c['unit']} ({limit_text(c)}{detail})"


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


def verdict(result, failed_rows=(), subset=False, filtered=None, wrong=(), cut_short=None):
    """(status, one line) of the SKU check of one GPU: wrong when a result verified in the run was wrong (`wrong`:
    the rows' own words); abnormal when a value is outside its limit; incomplete when values the limits expect
    are missing (rows failed, the run filtered or interrupted: `cut_short`, "12 of 79 rows") unless `subset`
    (the user asked for a part only; failed rows still count); normal otherwise."""
    if wrong:
        return WRONG, "wrong result: " + "; ".join(wrong[:4]) + (f" (and {len(wrong) - 4} more)" if len(wrong) > 4 else "")
    if not result:
        if cut_short:
            return INCOMPLETE, f"incomplete: the run was cut short ({cut_short} reported)"
        return NO_LIMITS, "no reference limits for this GPU (analysis/reference_ranges.json)"
    bad = outside(result)
    judged = [c for c in result["checks"] if c["inside"] is not None]
    own = [c for c in judged if c.get("own")]
    informational = len(result["checks"]) - len(judged)
    missing = result["missing"]
    failed = list(failed_rows)
    if result.get("sku") is None:  # no SKU limits: the chip against itself only
        if bad:
            return ABNORMAL, "abnormal against its own SMs: " + "; ".join(outside_text(c) for c in bad)
        return NO_LIMITS, (f"no reference limits for this GPU (analysis/reference_ranges.json); its {len(judged)} "
                           "per-SM values agree with its own median")
    if bad:
        whose = f"the {result['name']} limits" + (" or the chip's own median" if own else "")
        return ABNORMAL, (f"abnormal: {len(bad)} of {len(judged)} values outside {whose}: " +
                          "; ".join(outside_text(c) for c in bad) +
                          (f" (and {len(missing)} values missing)" if missing else ""))
    expected = len(missing) + len(result["checks"]) - len(own) + len(result["other_method"])
    if len(judged) == len(own) and not missing and result["other_method"]:
        return NO_LIMITS, (f"no limits for this measurement method: the {result['name']} limits were made by another "
                           f"({len(result['other_method'])} values); make them with make_ranges.py (docs/verdicts.md)")
    if len(judged) == len(own) and not missing and not failed and not cut_short:
        return NO_LIMITS, f"no value of this run has a {result['name']} limit"
    if result.get("unlisted") and not subset:
        return INCOMPLETE, (f"incomplete: the {result['name']} limits do not say which values the "
                            f"{result['unlisted']} preset measures (make_ranges.py with runs of it: docs/verdicts.md)")
    if (missing and not subset) or failed or cut_short:
        why = []
        if cut_short:
            why.append(f"the run was cut short ({cut_short} reported)")
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
    own_text = f"; {len(own)} per-SM values within the chip's own median" if own else ""
    preset = f"; {result['not_in_preset']} limits of values this preset does not measure" if result.get("not_in_preset") else ""
    return NORMAL, (f"normal: {len(judged) - len(own)} values within the {result['name']} limits{note}{own_text}{other}"
                    f"{part}{preset}")


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
