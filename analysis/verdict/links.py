"""The links of a node: every ordered pair of GPUs of a run over several GPUs, read from its Peer rows (a copy one
way, both ways at once, each against the NVLink links' own peak; a dependent load in the peer's memory), set out
as a matrix and judged: each link against the architecture's link limits and against the node's other links, and
where every link from or to one GPU is slow, that GPU is named rather than each of its links.
"""
import statistics

from analysis.verdict import limits as limit_table

LINK_FLOOR = limit_table.NODE_FLOOR  # the least distance from the node's other links that is a fault (the node layer's)


def against_other_links(x, others, better):
    """A link against the node's other links: the node rule at its floor (links have no board-to-board spread)."""
    return limit_table.against_peers(x, others, better, LINK_FLOOR)
# (key, label, field of link_values, better, judged against the node's other links too)
# A peer's latency is set by where the reading GPU sits: on one host of four H200s, GPUs 0 and 3 read every peer in
# 800 ns and GPUs 1 and 2 in 852 ns, alone and in the node (docs/results/2026-11-26-node-production), and the
# architecture's links span 1583-1683 cycles; so latency is judged by the architecture's limit only.
QUANTITIES = (("link.one_way.fraction_of_link", "copy one way", "one_way_fraction", "higher", True),
              ("link.both_ways.fraction_of_link", "copy both ways at once", "both_ways_fraction", "higher", True),
              ("link.latency_cycles", "load-to-use in the peer's memory (4 MiB)", "latency_cycles", "lower", False))


def link_values(report):
    """{(a, b): {"one_way", "one_way_fraction", "both_ways", "both_ways_fraction", "latency_cycles", "links",
    "boards"}} of a run over several GPUs (empty for one GPU): a -> b one way is the median of a's copy to b and
    b's copy from a; both ways is either GPU's."""
    parts = dict(report.devices())
    if len(parts) < 2 or None in parts:
        return {}
    found = {}
    for gpu, part in parts.items():
        copies = [r for r in part.rows("Peer/copy", "bytes_per_second") if r.gpu == gpu]
        largest = max((int(r.args["MiB"]) for r in copies), default=None)
        for row in copies:
            if int(row.args["MiB"]) != largest:
                continue  # the largest copy is the link's rate; a small one is its start-up's
            peer, direction = int(row.args["peer"]), int(row.args["direction"])
            pair = {0: (gpu, peer), 1: (peer, gpu), 2: (gpu, peer)}[direction]
            entry = found.setdefault(pair, {"one_way": [], "one_way_fraction": [], "both_ways": [],
                                            "both_ways_fraction": [], "latency_cycles": [], "links": None})
            field = "both_ways" if direction == 2 else "one_way"
            entry[field].append(row.value("bytes_per_second"))
            if row.value("fraction_of_link") is not None:
                entry[field + "_fraction"].append(row.value("fraction_of_link"))
            entry["links"] = row.value("nvlink_links", entry["links"])
            if direction == 2:  # both ways is the pair's: the other order reads it too
                other = found.setdefault((peer, gpu), {"one_way": [], "one_way_fraction": [], "both_ways": [],
                                                       "both_ways_fraction": [], "latency_cycles": [], "links": None})
                other["both_ways"].append(row.value("bytes_per_second"))
                if row.value("fraction_of_link") is not None:
                    other["both_ways_fraction"].append(row.value("fraction_of_link"))
        smallest = min((int(r.args["bytes"]) for r in part.rows("Peer/chase", "cycles_per_load")), default=None)
        for row in part.rows("Peer/chase", "cycles_per_load", bytes=smallest):
            if row.gpu == gpu and int(row.args["memory_on"]) != gpu:
                pair = (gpu, int(row.args["memory_on"]))
                found.setdefault(pair, {"one_way": [], "one_way_fraction": [], "both_ways": [], "both_ways_fraction": [],
                                        "latency_cycles": [], "links": None})["latency_cycles"].append(
                    row.value("cycles_per_load"))
    out = {}
    for (a, b), entry in sorted(found.items()):
        value = {k: statistics.median(v) if v else None for k, v in entry.items() if k != "links"}
        value["links"] = entry["links"]
        value["boards"] = (parts[a].context.get("gpu_uuid"), parts[b].context.get("gpu_uuid"))
        out[(a, b)] = value
    return out


def limits_of(report, limits):
    """The architecture's link limits for this node's GPUs ({key: limit}), or {}."""
    first = next(iter(dict(report.devices()).values()))
    _, arch = limit_table.arch_of(first.context.get("gpu_compute_capability"), limits)
    return (arch or {}).get("links", {})


def judge(values, limits):
    """[check] of every ordered link: against the architecture's link limit and, for its rates, the median of the
    node's other links (LINK_FLOOR, where the node has two other links or more); then `named` (the GPUs whose every link is
    slow, each with the checks it explains) as (checks, named)."""
    checks = []
    for key, label, field, better, against_node in QUANTITIES:
        have = {pair: v[field] for pair, v in values.items() if v.get(field) is not None}
        for pair, x in have.items():
            limit = limits.get(key)
            if limit:
                inside = limit_table.judge({"value": x, "better": better}, limit)
                checks.append({"link": pair, "key": key, "label": label, "value": x, "better": better,
                               "low": limit.get("low"), "high": limit.get("high"), "inside": inside,
                               "layer": "architecture", "source": limit.get("source", "")})
            others = [y for p, y in have.items() if p != pair and set(p) != set(pair)]
            if against_node and len(others) >= 2:
                inside, ref, _ = against_other_links(x, others, better)
                checks.append({"link": pair, "key": key, "label": label, "value": x, "better": better,
                               "low": ref * (1 - LINK_FLOOR) if better == "higher" else None,
                               "high": ref * (1 + LINK_FLOOR) if better == "lower" else None, "inside": inside,
                               "layer": "node", "source": f"median of the node's {len(others)} other links"})
    bad = {c["link"] for c in checks if c["inside"] is False}
    gpus = sorted({g for pair in values for g in pair})
    named = {}
    if len(gpus) >= 3:
        for g in gpus:
            mine = [pair for pair in values if g in pair]
            if mine and all(pair in bad for pair in mine):
                named[g] = mine
    return checks, named


def findings(checks, named):
    """The links that are not normal, as data, GPUs named first: {"gpu": g, "links": [pairs]} for a GPU whose every
    link is slow (the GPU, not its links), {"link": (a, b), "checks": [checks outside]} for each other slow link."""
    out = [{"gpu": g, "links": pairs} for g, pairs in sorted(named.items())]
    explained = {pair for pairs in named.values() for pair in pairs}
    by_link = {}
    for c in checks:
        if c["inside"] is False and c["link"] not in explained:
            by_link.setdefault(c["link"], []).append(c)
    out += [{"link": pair, "checks": bad} for pair, bad in sorted(by_link.items())]
    return out


def judged(report, limits):
    """(the node's links, the findings of its slow links and GPUs named by their links), read once; render says
    each."""
    values = link_values(report)
    checks, named = judge(values, limits_of(report, limits))
    return values, findings(checks, named)


def render(finding):
    """One finding's line: "GPU 2: every link from or to it is slow ..." or "link 0->1: abnormal: ..."."""
    if "gpu" in finding:
        return (f"GPU {finding['gpu']}: every link from or to it is slow ({len(finding['links'])} links): the GPU, "
                "not its links")
    a, b = finding["link"]
    return f"link {a}->{b}: abnormal: " + "; ".join(
        f"{c['label']} {c['value']:.4g} ({'against the node' if c['layer'] == 'node' else 'architecture limit'}: "
        f"{'at least' if c['better'] == 'higher' else 'at most'} {c['low'] if c['better'] == 'higher' else c['high']:.4g})"
        for c in finding["checks"])


def lines(checks, named):
    """(worst is abnormal, [one line per link that is not normal, GPUs named first])."""
    out = [render(f) for f in findings(checks, named)]
    return bool(out), out


def matrix_markdown(values):
    """The NVLink matrix: one way (GB/s and fraction of the links), both ways, load-to-use latency."""
    gpus = sorted({g for pair in values for g in pair})
    if not gpus:
        return []
    out = ["## NVLink matrix", "", "Row: the GPU the copy leaves; column: the GPU it reaches. One way: GB/s (fraction of "
           "the links' peak one way); both ways at once: GB/s of the pair; latency: a dependent load in the column's "
           "memory from the row, cycles.", ""]
    for title, field, fraction, scale, unit in (("one way", "one_way", "one_way_fraction", 1e-9, "GB/s"),
                                                ("both ways at once", "both_ways", "both_ways_fraction", 1e-9, "GB/s"),
                                                ("load-to-use latency", "latency_cycles", None, 1, "cycles")):
        out += [f"**{title}** ({unit})", "", "| from \\ to | " + " | ".join(f"GPU {g}" for g in gpus) + " |",
                "|---|" + "---:|" * len(gpus)]
        unmeasured = False
        for a in gpus:
            cells = []
            for b in gpus:
                v = values.get((a, b), {})
                if a == b:
                    cells.append("-")
                    continue
                if v.get(field) is None:
                    cells.append("not measured")
                    unmeasured = True
                    continue
                text = f"{v[field] * scale:.1f}" if unit == "GB/s" else f"{v[field]:.0f}"
                if fraction and v.get(fraction) is not None:
                    text += f" ({v[fraction]:.1%})"
                cells.append(text)
            out.append(f"| GPU {a} | " + " | ".join(cells) + " |")
        if unmeasured:
            # A node check gives each pair to one of its two GPUs (node_schedule.h), which measures what one GPU can
            # (its copies both ways; a load from itself into the peer's memory): the other direction's load is not.
            out += ["", "Not measured: the node gives each pair of GPUs to one of them, which measures this from its "
                        "side only."]
        out.append("")
    return out
