"""HostLink: the GPU's PCIe link to its host, each way, from pinned memory on the GPU's NUMA node, against the link's
theoretical rate at the generation and width it can train at; the generation and width it trained at, read while
copies ran (docs/experiments/host_link.md). Alone (a run of one GPU, or a node's GPU in its turn on the host) the link
sets the rate; every GPU of a node at once (HostLink/together), what they share of the host does. The verdict judges
the rates alone: against the node's other GPUs (the node layer) and against the link's own theoretical (the own
layer, OWN_FLOOR). The rates at once are said, with which GPUs share a bottleneck (`sharing`), not judged."""
from analysis.model.values import Value, mean_rows, short

FAMILIES = ("HostLink",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies. A copy
# at once moves with how the host shares itself, more than a copy alone (noise_class).
NOISE = {"bytes_per_second": "host_link", "fraction_of_pcie": "host_link"}

ORDER = 71
SECTION = "Interconnect"
DIRECTIONS = ((0, "to_gpu", "host to GPU copy"), (1, "to_host", "GPU to host copy"))
WHERE = "pinned, the GPU's NUMA node"
# The own layer: a link alone carries at least half its theoretical rate at the generation and width it can train
# at, the rate of a link one generation down. Healthy H100 and H200 links read 0.87-0.88; the lowest of lent VMs,
# 0.62, was a process's first copy before the link was warmed (docs/results/2026-11-27-node-health).
OWN_FLOOR = 0.5
# A GPU whose copy at once reads below this share of its copy alone shares a bottleneck with the others.
SHARED_BELOW = 0.9
# The node layer's tolerance for a copy alone: a lent host moved a healthy GPU's copy alone 24% under its node's
# others (x4c, 2026-11-28-edges) while the link trained Gen5 x16; a link at half (a generation or half its lanes
# down) is past it and past OWN_FLOOR. The rows state no precision (the host, not the board, moves them).
NODE_TOLERANCE = 0.25


def noise_class(row, quantity, context):
    if quantity in NOISE and row.registered == "HostLink/together":
        return "host_shared"
    return None  # NOISE's


def link_text(row):
    """"PCIe Gen5 x16 of Gen5 x16 (NUMA node 0)", from a row's counters."""
    trained = f"Gen{row.get('pcie_gen', 0):.0f} x{row.get('pcie_width', 0):.0f}"
    most = f"Gen{row.get('pcie_gen_max', 0):.0f} x{row.get('pcie_width_max', 0):.0f}"
    node = row.get("numa_node")
    return f"PCIe {trained} of {most}" + (f" (NUMA node {node:.0f})" if node is not None and node >= 0 else "")


def planted(report, registered):
    """The plant a row's label names (GPUBENCH_PLANT_HOSTLINK), or ""."""
    for row in report.rows(registered):
        label = row.get("label") or ""
        if "planted: " in label:
            return label[label.index("planted: ") + len("planted: "):]
    return ""


def pcie_path(report):
    """The GPU's PCIe path from the host's root, as the copies at once read it ("pci0000:00/0000:00:07.0"), or None."""
    for row in report.rows("HostLink/together"):
        label = row.get("label") or ""
        if label.startswith("pcie path ") and not label.startswith("pcie path unknown"):
            return label[len("pcie path "):].split(";")[0]
    return None


def card(report):
    alone = mean_rows(report.rows("HostLink/copy", "bytes_per_second"))
    at_once = mean_rows(report.rows("HostLink/together", "bytes_per_second"))
    for direction, word, label in DIRECTIONS:
        key = f"host_link.{word}"
        found = [r for r in alone if r["args"].get("direction") == direction]
        plant = planted(report, "HostLink/copy")
        named = f"{label}, alone ({WHERE})" + (f" [planted: {plant}]" if plant else "")
        if not found:
            yield Value.missing(key, SECTION, named, "B/s")
            continue
        best = max(found, key=lambda r: r["bytes_per_second"])
        text = f"{best['bytes_per_second'] / 1e9:.1f} GB/s"
        fraction = best.get("fraction_of_pcie")
        if fraction:
            text += f", {fraction:.1%} of the link's one-way rate"
        rate = Value(key, SECTION, named, best["bytes_per_second"], "B/s", short(best["run_name"]),
                     f"{text}; {link_text(best)}")
        rate["node_tolerance"] = NODE_TOLERANCE
        yield rate
        if fraction:
            yield Value(f"{key}.of_link", SECTION, f"{label} alone, of the link's theoretical", fraction,
                        "of the link's one-way rate", short(best["run_name"]),
                        f"{fraction:.3f} of {link_text(best)}'s one-way rate",
                        limit={"low": OWN_FLOOR, "against": "against the link's theoretical", "source": f"the link's own theoretical: at least {OWN_FLOOR:.0%}, "
                                                          "a link one generation down carries half"})
        together = [r for r in at_once if r["args"].get("direction") == direction]
        if together:
            row = together[0]
            share = row["bytes_per_second"] / best["bytes_per_second"]
            v = Value(f"host_link.together_{word}", SECTION, f"{label}, every GPU of the node at once",
                      row["bytes_per_second"], "B/s", short(row["run_name"]),
                      f"{row['bytes_per_second'] / 1e9:.1f} GB/s while every GPU of the node copied, {share:.2f} of "
                      "this GPU's alone", better="info")
            v["pcie_path"] = pcie_path(report)
            v["alone"] = best["bytes_per_second"]
            yield v


def _gpus(gpus, verbs=None):
    """"GPUs 0, 1" or "GPU 0", with `verbs` (singular, plural: "copies", "copy") agreeing."""
    gpus = list(gpus)
    text = ("GPU " if len(gpus) == 1 else "GPUs ") + ", ".join(str(g) for g in gpus)
    if verbs:
        text += " " + verbs[len(gpus) > 1]
    return text


def _meeting_points(readings):
    """Every point where two or more GPUs' PCIe paths meet, deepest first, with the readings under it; the host
    itself (every GPU, paths known or not) last."""
    under = {}
    for r in readings:
        parts = r[3].split("/") if r[3] else []
        for depth in range(1, len(parts)):  # the path's last part is the GPU itself
            under.setdefault(tuple(parts[:depth]), []).append(r)
    points = sorted((p for p, members in under.items() if len(members) >= 2), key=len, reverse=True)
    return [under[p] for p in points] + [list(readings)]


def shared_groups(readings):
    """The groups of GPUs that share a bottleneck: at each point where paths meet (deepest first), the GPUs under it
    not yet named copy at once below SHARED_BELOW of their rates alone, summed. Summed, because one GPU's turn alone
    can read low on a VM (41.7 of 55 GB/s, x4c): its share alone would hide it in a group the others name."""
    groups, named = [], set()
    for members in _meeting_points(readings):
        fresh = [r for r in members if r[0] not in named]
        if not fresh or len(members) < 2:
            continue
        if sum(r[1] for r in fresh) < SHARED_BELOW * sum(r[2] for r in fresh):
            groups.append(members)
            named |= {r[0] for r in members}
    return groups


def sharing(built):
    """Lines for the node card: for each direction, the GPUs' copies at once against alone, and which GPUs share a
    bottleneck (shared_groups) with where their PCIe paths meet. `built`: [(gpu, card)]. [] where the run has no
    copies at once."""
    lines = []
    for _, word, label in DIRECTIONS:
        readings = []
        for gpu, c in built:
            v = next((v for v in c.values if v["key"] == f"host_link.together_{word}" and v["value"]), None)
            if v and v.get("alone"):
                readings.append((gpu, v["value"], v["alone"], v.get("pcie_path")))
        if len(readings) < 2:
            continue
        total = sum(r[1] for r in readings)
        text = (f"{label}: {total / 1e9:.1f} GB/s in all with {_gpus(r[0] for r in readings)} at once; "
                f"each {min(r[1] for r in readings) / 1e9:.1f}-{max(r[1] for r in readings) / 1e9:.1f} GB/s against "
                f"{min(r[2] for r in readings) / 1e9:.1f}-{max(r[2] for r in readings) / 1e9:.1f} alone.")
        groups = shared_groups(readings)
        for group in groups:
            together = sum(r[1] for r in group) / sum(r[2] for r in group)
            text += (f" {_gpus((r[0] for r in group), ('shares', 'share'))} a bottleneck (at once {together:.2f} of their rates "
                     f"alone, summed; each {min(r[1] / r[2] for r in group):.2f}-{max(r[1] / r[2] for r in group):.2f})"
                     f"{meeting_text([r[3] for r in group])}.")
        free = [r for r in readings if all(r[0] not in (m[0] for m in g) for g in groups)]
        if free:
            text += (f" {_gpus((r[0] for r in free), ('copies', 'copy'))} at once at {min(r[1] / r[2] for r in free):.2f}-"
                     f"{max(r[1] / r[2] for r in free):.2f} of alone: nothing "
                     f"{'it shares slows it' if len(free) == 1 else 'they share slows them'} by {1 - SHARED_BELOW:.0%} or "
                     "more.")
        lines.append(text)
    return lines


def meeting_text(paths):
    """Where PCIe paths meet ("pci0000:00/0000:00:01.0/0000:01:00.0", ...): their shared part, in words."""
    if not paths or any(not p for p in paths):
        return ", their PCIe paths unknown"
    parts = [p.split("/") for p in paths]
    common = []
    for level in zip(*parts):
        if len(set(level)) > 1:
            break
        common.append(level[0])
    if not common:
        return ": their paths meet only in the host (different root complexes), so the host's memory or the link " \
               "between its sockets is shared"
    if len(common) == 1:
        return f": their paths meet at the root complex {common[0]} (each on its own port), so its side of the " \
               "host is shared"
    return f": their paths meet at {common[-1]} under {common[0]} (a switch or root port they share)"
