"""Peer: copies to and from another GPU against its NVLink links, kernels reading and writing peer memory,
and load-to-use latency in peer memory against local memory (docs/experiments/peer.md)."""
from analysis.cards.noise import launch_us
from analysis.model.values import Value, mean_rows, short, size_text

FAMILIES = ("Peer",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"bytes_per_second": "link_bandwidth", "fraction_of_link": "link_bandwidth", "cycles_per_load": "memory_latency",
         "ns_per_load": "memory_latency"}
# A link copy's start (its first bytes across the switch; in a node, the far GPU's memory busy with its own rows) is a
# percent of a 100 us copy: two identical full node runs moved the 32 MiB copies (95-110 us) 0.6-1.6%, the 256 MiB
# ones (690 us) at most 0.35% (x4j, docs/results/2026-11-28-full-node-pair).
SHORT_LINK_COPY_US = 200.0


def noise_class(row, quantity, context):
    if NOISE.get(quantity) != "link_bandwidth":
        return None
    us = launch_us(row)
    return "short_launch" if us is not None and us < SHORT_LINK_COPY_US else None

ORDER = 70
SECTION = "Interconnect"
DIRECTIONS = ((0, "copy to the peer GPU", "to"), (1, "copy from the peer GPU", "from"),
              (2, "copy both ways at once", "both"))


def card(report):
    copies = mean_rows(report.rows("Peer/copy", "bytes_per_second"))
    for direction, label, word in DIRECTIONS:
        rows = [r for r in copies if r["args"].get("direction") == direction]
        key = f"peer.copy_{word}"
        if not rows:
            yield Value.missing(key, SECTION, label, "B/s")
            continue
        best = max(rows, key=lambda r: r["bytes_per_second"])
        text = f"{best['bytes_per_second'] / 1e9:.1f} GB/s"
        if best.get("fraction_of_link"):
            text += (f", {best['fraction_of_link']:.1%} of {best.get('nvlink_links', 0):.0f} NVLink links' "
                     f"{'two directions' if direction == 2 else 'one direction'}")
        yield Value(key, SECTION, label, best["bytes_per_second"], "B/s", short(best["run_name"]), text)
    for registered, key, label in (("Peer/read", "peer.read", "kernel reading peer memory"),
                                   ("Peer/write", "peer.write", "kernel writing peer memory")):
        rows = mean_rows(report.rows(registered, "bytes_per_second"))
        if rows:
            best = max(rows, key=lambda r: r["bytes_per_second"])
            yield Value(key, SECTION, label, best["bytes_per_second"], "B/s",
                        short(best["run_name"]), f"{best['bytes_per_second'] / 1e9:.1f} GB/s")
    chases = report.rows("Peer/chase", "ns_per_load")
    if not chases:
        yield Value.missing("peer.chase.latency_ns", SECTION, "load-to-use latency in peer memory", "ns")
        return
    largest = max(float(r.args["bytes"]) for r in chases)
    under_test = float(report.context.get("gpu_index", 0) or 0)
    at = {("peer" if float(r.args["memory_on"]) != under_test else "local"):
          {k: float(r[k]) for k in ("ns_per_load", "cycles_per_load")} | {"run_name": r["run_name"]}
          for r in chases if float(r.args["bytes"]) == largest}
    if "peer" in at:
        text = f"{at['peer']['ns_per_load']:.0f} ns ({at['peer']['cycles_per_load']:.0f} cycles) per load"
        if "local" in at:
            text += f"; local memory {at['local']['ns_per_load']:.0f} ns in the same run"
        yield Value("peer.chase.latency_ns", SECTION, f"load-to-use latency in peer memory ({size_text(largest)})",
                    at["peer"]["ns_per_load"], "ns", short(at["peer"]["run_name"]), text)
