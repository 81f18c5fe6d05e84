"""Is this GPU normal? Each GPU's card checked in every layer (analysis/verdict/layers.py) and one verdict per GPU
and per node, as data: a status from the one table (analysis/verdict/table.py), a code saying which rule decided it,
and its reasons, each with its code and, where a limit decided, the layer and the limit. analysis/verdict/wording.py
renders it.

A run whose GPU another process used (at its start, during it or at its end) is `busy`: its values are not judged. A
value no layer has a limit for is not judged; a value a layer expects and the run lacks makes the run incomplete.
"""
from analysis.cards import families
from analysis.cards.card import Card
from analysis.verdict import health as health_state, layers, wording
from analysis.verdict.table import ABNORMAL, BUSY, INCOMPLETE, NAME_OF, NO_LIMITS, NORMAL, WRONG, summary, worst


# Presets whose rows are judged by their own rules and their node's (the burn, the memory test repeated): no SKU limit
# lists their values, and their own and node checks decide.
LONG_PRESETS = ("burn", "memtest")


def family_findings(report):
    """Findings of the families that judge more than values (the burn's clock events): [{"code", "action", "text"}]."""
    return [f for module in families.modules() if hasattr(module, "findings") for f in module.findings(report)]


def outside(result):
    return [c for c in (result or {}).get("checks", []) if c["inside"] is False]


def near(result):
    """Checks past a one-sided limit but inside it by the value's own uncertainty (limits.guard: not proven outside):
    a second measurement decides them before the verdict is given (running/measure_again.py). A healthy board's value
    inside its limit is never measured again."""
    return [c for c in (result or {}).get("checks", []) if c["inside"] is True and c.get("precision") is not None
            and wording.margin(c) is not None and wording.margin(c) < 0]


def _reason(c):
    """A check outside its limit as a reason: what, where, which layer and limit."""
    return {"code": "outside_limit", "key": c["key"], "value": c["value"], "unit": c["unit"], "layer": c["layer"],
            "limit": {"low": c.get("low"), "high": c.get("high"), "better": c.get("better"), "source": c["source"]}}


def decide(result, failed_rows=(), subset=False, filtered=None, wrong=(), cut_short=None, busy=None, health=()):
    """decide_values, with the GPU's health state (analysis/verdict/health.py's findings): a finding that drains makes
    the GPU abnormal whatever its values read (after a wrong result); warnings ride on any verdict."""
    drain = health_state.drains(health)
    if drain and not wrong:
        verdict = {"status": ABNORMAL, "code": "unhealthy", "health": drain,
                   "reasons": [{"code": f["code"], "text": f["text"], "action": f["action"]} for f in drain]}
    else:
        verdict = decide_values(result, failed_rows, subset, filtered, wrong, cut_short, busy)
    warned = health_state.warnings(health)
    if warned:
        verdict["warnings"] = [{"code": f["code"], "text": f["text"], "action": f["action"]} for f in warned]
    return verdict


def decide_values(result, failed_rows=(), subset=False, filtered=None, wrong=(), cut_short=None, busy=None):
    """One GPU's verdict as data: {"status", "code", "reasons", ...what its line says}. In order: wrong, busy,
    incomplete when cut short, abnormal (a value outside any layer's limit), no limits (no layer but its own SMs),
    incomplete (values a layer expects are missing, rows failed), normal. A preset the limits list no values of (the
    full preset) is judged on the values it measured: none is missing to it, and a healthy GPU is never drained for
    what the limits do not say."""
    bad = outside(result)
    if wrong:
        return {"status": WRONG, "code": "wrong_result", "wrong": list(wrong),
                "reasons": [{"code": "wrong_result", "text": w} for w in wrong]}
    if busy:
        return {"status": BUSY, "code": "busy", "busy": busy, "outside": bad,
                "reasons": [{"code": "other_process", "text": busy}]}
    if result.get("own_families_only"):
        return {"status": NO_LIMITS, "code": "own_families_only", "reasons": []}
    judged = [c for c in result["checks"] if c["inside"] is not None]
    by_layer = {}
    for c in judged:
        by_layer.setdefault(c["layer"], []).append(c)
    entries, missing, failed = result["layers"], result["missing"], list(failed_rows)
    if cut_short:
        # A value read over a sweep cut short (the best of the rows that ran) is no value of the GPU: incomplete,
        # whatever it reads; the values it would have put outside are said.
        failed = [f for f in failed if f["error"] != "interrupted"]
        return {"status": INCOMPLETE, "code": "cut_short", "cut_short": cut_short, "outside": bad, "failed": failed,
                "reasons": [{"code": "cut_short", "text": cut_short}] + [_reason(c) for c in bad]}
    if bad:
        return {"status": ABNORMAL, "code": "outside_limit", "outside": bad, "judged": len(judged),
                "missing": len(missing), "reasons": [_reason(c) for c in bad]}
    counts = ", ".join(f"{len(by_layer[layer])} {layer}" for layer in ("architecture", "sku", "node", "own")
                       if layer in by_layer)
    deciding = ("architecture", "sku") + (("own", "node") if result.get("preset") in LONG_PRESETS else ())
    limited = [c for c in judged if c["layer"] in deciding]
    if not entries and not limited:
        return {"status": NO_LIMITS, "code": "no_layer", "counts": counts, "node": len(by_layer.get("node", [])),
                "reasons": []}
    names = " and ".join(entry["name"] for entry in entries)
    if not limited and not missing and result["other_method"]:
        return {"status": NO_LIMITS, "code": "other_method", "names": names,
                "other_method": len(result["other_method"]),
                "reasons": [{"code": "other_method", "key": o["key"], "layer": o["layer"], "method": o["method"],
                             "limit": {"method": o["limit_method"]}} for o in result["other_method"]]}
    if not limited and not missing and not failed:
        return {"status": NO_LIMITS, "code": "no_value_limited", "names": names, "reasons": []}
    if (missing and not subset) or failed:
        labels = list(dict.fromkeys(m["label"] for m in missing))  # a rate and its per-clock twin share a label
        return {"status": INCOMPLETE, "code": "values_missing", "missing": len(missing), "missing_labels": labels,
                "expected": len(missing) + len({c["key"] for c in limited}), "failed": failed, "filtered": filtered,
                "reasons": [{"code": "value_missing", "key": m["key"], "layer": m["layer"]} for m in missing] +
                           [{"code": "row_failed", "row": f["row"], "text": f["error"]} for f in failed]}
    return {"status": NORMAL, "code": "within_limits", "limited": len({c["key"] for c in limited}), "names": names,
            "informational": len(result["checks"]) - len(judged), "counts": counts,
            "other_method": len(result["other_method"]), "missing": len(missing),
            "not_in_preset": result.get("not_in_preset"), "unlisted": result.get("unlisted"),
            "preset": result.get("preset"), "checks": result["checks"], "reasons": []}


def judge(result, failed_rows=(), subset=False, filtered=None, wrong=(), cut_short=None, busy=None, health=()):
    """(status, one line) of one GPU: decide, in words."""
    verdict = decide(result, failed_rows, subset, filtered, wrong, cut_short, busy, health)
    return verdict["status"], wording.line(verdict)


def give(card, subset=False):
    """Gives a built and checked card its verdict: card.judged (status, line) and card.verdict (the data its JSON
    keeps, with the code and reasons)."""
    c = card.context
    verdict = decide(card.checks, card.failed, subset, c.get("gpubench_filter"), card.wrong, card.cut_short,
                     layers.busy_text(c), health_state.findings(c) + family_findings(card.report))
    card.judged = (verdict["status"], wording.line(verdict))
    card.verdict = summary(*card.judged, code=verdict["code"], reasons=verdict["reasons"],
                           **({"warnings": verdict["warnings"]} if "warnings" in verdict else {}))
    return card.judged


def check(card, limits):
    """Checks a built card in every layer but the node's: card.checks, and the keys the check preset's limits expect
    (what its card shows)."""
    card.limits = limits
    card.checks = layers.check(card.values, card.context, limits, card.context.get("gpubench_preset"))
    ran = {row.family for row in card.report.all_rows}
    users = {row.family for row in card.report.all_rows if (row.get("gpubench") or {}).get("users_family")}
    if ran and ran <= users:  # only families of a user's own ran (a kernel measured through the package)
        card.checks = dict(card.checks, layers=[], checks=[], missing=[], other_method=[], not_in_preset=0,
                           own_families_only=True)
    card.expected = {key for _, entry in layers.layer_entries(card.context, limits)
                     for key in (entry.get("expected") or {}).get("check", [])}
    return card


def limit_lines(card):
    """The card's section of limits (wording.markdown), where a layer judged anything."""
    return wording.markdown(card.checks) if card.checks and (card.checks["layers"] or card.checks["checks"]) else []


def build(report, limits):
    """A GPU's card, built and checked (not yet judged)."""
    return check(Card(report).build(), limits)


def judge_cards(cards, limits, subset=False):
    """[(gpu, card, status, line)] of built cards [(gpu, card)]: each with its layers and its node's."""
    node = layers.node_checks(cards, limits)
    judged = []
    for gpu, card in cards:
        card.checks["checks"] += node.get(gpu, [])
        status, line = give(card, subset)
        judged.append((gpu, card, status, line))
    return judged


def judge_all(report, limits, subset=False):
    """[(gpu, card, status, line)] of every GPU of `report`, each judged in every layer and against its node."""
    return judge_cards([(gpu, build(part, limits)) for gpu, part in report.devices()], limits, subset)


def node_verdict(judged, link_findings=()):
    """The node's verdict as data: its worst GPU's or link's status, each GPU's status and board, and the findings of
    its slow links and GPUs of slow links (links.findings)."""
    status = worst([s for *_, s, _ in judged] + ([ABNORMAL] if link_findings else []))
    gpus = [{"gpu": gpu, "uuid": card.context.get("gpu_uuid", "?"), "pci_bus_id": card.context.get("gpu_pci_bus_id", "?"),
             "status": s} for gpu, card, s, _ in judged]
    reasons = [{"code": "gpu_" + NAME_OF[g["status"]], "gpu": g["gpu"]} for g in gpus if g["status"] != NORMAL]
    reasons += [{"code": "gpu_links_slow", "gpu": f["gpu"]} if "gpu" in f else {"code": "link_slow", "link": f["link"]}
                for f in link_findings]
    together = health_state.node_findings([(gpu, card.context) for gpu, card, *_ in judged])
    if health_state.drains(together):
        status = worst([status, ABNORMAL])
    reasons += [{"code": f["code"], "text": f["text"], "action": f["action"]} for f in health_state.drains(together)]
    node = {"status": status, "gpus": gpus, "links": list(link_findings), "normal": NORMAL, "reasons": reasons,
            "warnings": health_state.warnings(together), "health": health_state.drains(together)}
    return node | {"line": wording.node_line(node)}


def node_line(judged, link_findings=()):
    """(status, line) of the node (node_verdict, in words)."""
    node = node_verdict(judged, link_findings)
    return node["status"], node["line"]
