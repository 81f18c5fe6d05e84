"""Cluster: what a block pays to read another block's shared memory in its thread-block cluster (DSMEM),
by cluster size, beside its own shared memory; and the bandwidth of every block reading (writing) the
next block's shared memory against each reading its own (docs/experiments/cluster.md)."""
from analysis.model import values
from analysis.model.values import Value, median
from analysis.cards.loop_rules import SASS_CONTROL

FAMILIES = ("Cluster",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_load": "sm_clocks", "bytes_per_clock_per_block": "sm_clocks", "bytes_per_clock_per_sm": "sm_clocks",
         "ns_per_load": "sm_time", "bytes_per_second": "sm_time"}


def noise_class(row, quantity, context):
    """Another block's shared memory: the distance between the two SMs the hardware paired."""
    if row.registered == "Cluster/dsmem_latency" and int(row.args.get("rank", 0)) > 0 and quantity in NOISE:
        return "sm_placement"
    return None

ORDER = 15
SECTION = "Thread-block clusters (distributed shared memory)"


def latency_values(report):
    local = report.rows("Cluster/smem_latency", "cycles_per_load")
    own = report.rows("Cluster/dsmem_latency", "cycles_per_load", cluster=1, rank=0)
    key, label = "memory.cluster.smem_latency", "own shared memory"
    if not local:
        yield values.not_run(report, "Cluster/smem_latency", key, SECTION, label, "cycles")
    else:
        text = f"{local[0].value('cycles_per_load'):.1f} cycles per ld.shared (load-to-use)"
        if own:
            text += f"; {own[0].value('cycles_per_load'):.1f} through the cluster window (ld.shared::cluster)"
        yield Value(key, SECTION, label, local[0].value("cycles_per_load"), "cycles",
                    ", ".join(r.short_name for r in local + own[:1]), text, set_by="sm")
    remote = [r for r in report.rows("Cluster/dsmem_latency", "cycles_per_load") if r.args.get("rank", 0) > 0]
    sizes = sorted({int(r.args["cluster"]) for r in remote})
    if not sizes:
        yield values.not_run(report, "Cluster/dsmem_latency", "memory.cluster.dsmem_latency", SECTION,
                             "another block's shared memory", "cycles")
        return
    for size in sizes:
        rows = sorted((r for r in remote if r.args["cluster"] == size), key=lambda r: r.args["rank"])
        cycles = [r.value("cycles_per_load") for r in rows]
        low = min(rows, key=lambda r: r.value("cycles_per_load"))
        high = max(rows, key=lambda r: r.value("cycles_per_load"))
        text = (f"median {median(cycles):.0f} cycles over {len(rows)} rank(s), {low.value('cycles_per_load'):.0f} "
                f"(rank {low.args['rank']}, SM {low.value('sm', -1):.0f} to {low.value('peer_sm', -1):.0f}) to "
                f"{high.value('cycles_per_load'):.0f} (rank {high.args['rank']}, SM {high.value('sm', -1):.0f} to "
                f"{high.value('peer_sm', -1):.0f})")
        source = f"Cluster/dsmem_latency/cluster:{size}/rank:{rows[0].args['rank']}..{rows[-1].args['rank']}"
        yield Value(f"memory.cluster.dsmem_latency_{size}", SECTION, f"another block's, cluster of {size}",
                    median(cycles), "cycles", f"{source} ({len(rows)} rows)", text, set_by="sm")


def bandwidth_values(report):
    for write in (0, 1):
        verb = "writes" if write else "reads"
        rows = report.rows("Cluster/dsmem_bandwidth", "bytes_per_clock_per_block", width=16, write=write)
        if not rows:
            yield values.not_run(report, "Cluster/dsmem_bandwidth", f"memory.cluster.bandwidth_{verb}", SECTION,
                                 f"shared-memory {verb}, 16 B", "bytes/clk per SM")
            continue
        local = [r for r in rows if r.args["cluster"] == 1]
        for row in sorted(rows, key=lambda r: r.args["cluster"]):
            size = int(row.args["cluster"])
            whose = "its own" if size == 1 else f"the next block's, cluster of {size}"
            text = (f"{row.value('bytes_per_clock_per_block'):.1f} B/clk per SM, "
                    f"{row.value('bytes_per_second') / 1e12:.2f} TB/s over {row.value('blocks'):.0f} SMs")
            if size > 1 and local:
                text += f" ({row.value('bytes_per_clock_per_block') / local[0].value('bytes_per_clock_per_block'):.0%} of own)"
            yield Value(f"memory.cluster.bandwidth_{verb}_{size}", SECTION, f"every block {verb} {whose} (16 B)",
                        row.value("bytes_per_clock_per_block"), "bytes/clk per SM", row.short_name, text, set_by="sm")


def card(report):
    yield from latency_values(report)
    yield from bandwidth_values(report)


# The timed-loop audit (analysis/cards/loop_rules.py) of kernels/memory/cluster.cuh: a DSMEM chase step is one generic
# LD over the shared window (ld.shared::cluster compiles to LD.E with the window's high bits from S2R SR_SWINHI)
# and the MOVs that pair the address; the local chase one LDS; the streams LD/ST.E.128 over the window.
LOOP_RULES = {
    rule: {"kernel": kernel, "sass": (allowed | SASS_CONTROL, required)}
    for rule, kernel, allowed, required in (
        ("dsmem_chase", r"11dsmem_chaseILNS0_12SharedWindowE1E", {"LD", "MOV", "S2R"}, r"^LD\.E\b"),
        ("smem_chase", r"11dsmem_chaseILNS0_12SharedWindowE0E", {"LDS"}, r"^LDS\b"),
        ("dsmem_read", r"12dsmem_streamILi16ELb0ELNS0_12SharedWindowE1E",
         {"LD", "MOV", "S2R", "IMAD", "LDC", "BSSY", "BSYNC"}, r"^LD\.E\.128\b"),
        ("dsmem_write", r"12dsmem_streamILi16ELb1ELNS0_12SharedWindowE1E",
         {"ST", "MOV", "S2R", "IMAD", "LOP3", "LDC", "BSSY", "BSYNC"}, r"^ST\.E\.128\b"))
}
