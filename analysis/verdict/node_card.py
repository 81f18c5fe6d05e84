"""The node card: a run over several GPUs set out side by side (the headline values, a value outside any layer
marked), the NVLink matrix and the verdicts, in Markdown and JSON. Each GPU's own card is analysis/cards/card.py's."""
from analysis.cards.families import host_link
from analysis.cards.headline import HEADLINE
from analysis.verdict import links
from analysis.verdict.table import NAME_OF, summary


def node_markdown(report, built, link_values, link_findings, node_line):
    """The node card: the GPUs side by side (a value outside any layer marked), the NVLink matrix, the verdicts."""
    gpus = [gpu for gpu, _ in built]
    lines = [f"# Node card: {len(gpus)} GPUs", "",
             f"{report.context.get('host_name', 'host')}, {report.context.get('gpubench_node', 'one process')}; "
             f"preset {report.context.get('gpubench_preset', '?')}, {report.context.get('date', '')}. Each GPU's "
             "card: " + ", ".join(f"`card-gpu{g}.md`" for g in gpus) + " beside this file.", "",
             "## The GPUs side by side", "", "| | " + " | ".join(f"GPU {g}" for g in gpus) + " |",
             "|---|" + "---:|" * len(gpus)]
    for label, key in (("name", "gpu_name"), ("board", "gpu_uuid"), ("PCI bus", "gpu_pci_bus_id"),
                       ("SM clock (MHz)", "gpu_sm_clock_mhz_measured")):
        lines.append(f"| {label} | " + " | ".join(str(c.context.get(key, "-"))[:20] for _, c in built) + " |")
    for label, key, scale, unit in HEADLINE:
        cells = []
        for _, c in built:
            v = next((v for v in c.values if v["key"] == key), None)
            if not v or v["value"] is None:
                cells.append("-")
                continue
            out = [x for x in (c.checks or {}).get("checks", []) if x["key"] == key and x["inside"] is False]
            text = f"{v['value'] * scale:.4g}"
            cells.append(f"**{text} !** ({', '.join(sorted({x['layer'] for x in out}))})" if out else text)
        if any(cell != "-" for cell in cells):  # a value no GPU of this preset measured is left out
            lines.append(f"| {label} ({unit}) | " + " | ".join(cells) + " |")
    if all(c.judged for _, c in built):
        lines.append("| verdict | " + " | ".join(f"**{NAME_OF[c.judged[0]]}**" for _, c in built) + " |")
    shared = host_link.sharing(built)
    if shared:
        lines += ["", "## Host links", "", "Each GPU copied alone in its turn on the host, and with every GPU at once "
                  "(said, not judged: the host's side is shared by design)."] + [f"- {line}" for line in shared]
    lines += [""] + links.matrix_markdown(link_values)
    if node_line:
        lines += ["## Verdicts", ""] + [f"- GPU {g}: {c.judged[1]}" for g, c in built] + \
                 [f"- {links.render(f)}" for f in link_findings] + [f"- **node: {node_line}**"]
    return "\n".join(lines) + "\n"


def node_document(built, link_values, link_findings, node):
    """The node card's JSON: every GPU's card (its values keyed gpu:N/key, so that card.py --compare pairs the same
    GPU's values), the links each with whether it is inside, and the node's verdict (judge.node_verdict).
    `built`: [(gpu, card, file)]."""
    slow = {tuple(c["link"]) for f in link_findings for c in f.get("checks", ())} | \
        {tuple(pair) for f in link_findings for pair in f.get("links", ())}
    document = {"devices": [{"gpu": gpu, "card": file} | card.to_json() for gpu, card, file in built],
                "values": [v | {"key": f"gpu:{gpu}/{v['key']}", "gpu": gpu} for gpu, card, _ in built
                           for v in card.values],
                "links": [{"from": a, "to": b} | {k: v for k, v in value.items() if k != "boards"} |
                          {"boards": list(value["boards"]), "inside": (a, b) not in slow}
                          for (a, b), value in link_values.items()]}
    shared = host_link.sharing([(gpu, card) for gpu, card, _ in built])
    if shared:
        document["host_links"] = shared
    if node:
        document["verdict"] = summary(node["status"], node["line"], links=[links.render(f) for f in link_findings],
                                      reasons=node["reasons"])
    return document
