"""HostLink: the GPU's PCIe link to its host, each way, from pinned memory on the GPU's NUMA node, against the link's
theoretical rate at the generation and width it can train at; the generation and width it trained at, read while
copies ran (docs/experiments/host_link.md). In a node check every GPU copies at about the same time, so the host's
shared side sets the rate; alone, the link does."""
from analysis.model.values import Value, mean_rows, short

FAMILIES = ("HostLink",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "link_bandwidth", "fraction_of_pcie": "link_bandwidth"}

ORDER = 71
SECTION = "Interconnect"
DIRECTIONS = ((0, "to_gpu", "host to GPU copy (pinned, the GPU's NUMA node)"),
              (1, "to_host", "GPU to host copy (pinned, the GPU's NUMA node)"))


def link_text(row):
    """"PCIe Gen5 x16 of Gen5 x16 (NUMA node 0)", from a row's counters."""
    trained = f"Gen{row.get('pcie_gen', 0):.0f} x{row.get('pcie_width', 0):.0f}"
    most = f"Gen{row.get('pcie_gen_max', 0):.0f} x{row.get('pcie_width_max', 0):.0f}"
    node = row.get("numa_node")
    return f"PCIe {trained} of {most}" + (f" (NUMA node {node:.0f})" if node is not None and node >= 0 else "")


def card(report):
    rows = mean_rows(report.rows("HostLink/copy", "bytes_per_second"))
    for direction, word, label in DIRECTIONS:
        found = [r for r in rows if r["args"].get("direction") == direction]
        key = f"host_link.{word}"
        if not found:
            yield Value.missing(key, SECTION, label, "B/s")
            continue
        best = max(found, key=lambda r: r["bytes_per_second"])
        text = f"{best['bytes_per_second'] / 1e9:.1f} GB/s"
        if best.get("fraction_of_pcie"):
            text += f", {best['fraction_of_pcie']:.1%} of the link's one-way rate"
        yield Value(key, SECTION, label, best["bytes_per_second"], "B/s", short(best["run_name"]),
                    f"{text}; {link_text(best)}")
