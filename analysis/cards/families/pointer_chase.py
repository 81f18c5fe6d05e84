"""PointerChase: load-to-use latency per memory level, capacity edges, latency by SM, TLB reach and the
L1 edge under each carveout (docs/experiments/pointer_chase.md)."""
import statistics
from collections import defaultdict

from analysis.model import levels
from analysis.model.values import at_an_edge, in_the_l1, Sweep, Value, size_text
from analysis.cards.loop_rules import PTX_CONTROL, SASS_CONTROL

FAMILIES = ("PointerChase",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_load": "memory_latency", "ns_per_load": "memory_latency", "min_over_sms": "memory_latency",
         "median_over_sms": "memory_latency", "max_over_sms": "memory_latency"}


def noise_class(row, quantity, context):
    """The TLB and carveout sweeps sit on purpose on either side of an edge, where page placement moves them; so do
    the chases whose set is near this chip's L1 or L2, and those past the L1 over a few L2 lines. A chase served
    inside the SM (shared memory, or a set well inside the L1) is the SM's own latency: a fixed count of its clocks,
    whose nanoseconds move with the clock's bin (an H200's 16 KiB chase: 32.0 cycles at 1959-1979 MHz between node
    checks, docs/results/2026-11-28-held-out)."""
    if quantity not in NOISE:
        return None
    if row.registered in ("PointerChase/tlb", "PointerChase/carveout"):
        return "capacity_edge"
    if "bytes" in row.args and at_an_edge(float(row.args["bytes"]), context):
        return "capacity_edge"
    if row.registered in PAST_THE_L1 and "bytes" in row.args and float(row.args["bytes"]) <= FEW_L2_LINES_BYTES:
        return "capacity_edge"
    in_the_sm = row.registered in IN_SHARED_MEMORY or (
        row.registered in THROUGH_THE_L1 and "bytes" in row.args and in_the_l1(float(row.args["bytes"]), context))
    if in_the_sm and quantity in ("cycles_per_load", "ns_per_load"):
        return "sm_time" if quantity == "ns_per_load" else "sm_clocks"
    return None


IN_SHARED_MEMORY = ("PointerChase/shared", "PointerChase/shared_direct")
THROUGH_THE_L1 = ("PointerChase/direct", "PointerChase/cached")
PAST_THE_L1 = ("PointerChase/direct_l2", "PointerChase/l2_only", "PointerChase/volatile")
# A set of a few thousand lines served by the L2 sits in whichever slices, near or far, its pages map to: between two
# identical full node runs of four H200s its 4-512 KiB chases moved up to 4.8%, from 768 KiB at most 0.2% (x4j,
# docs/results/2026-11-28-full-node-pair). Such a set is placed, as a capacity edge's is.
FEW_L2_LINES_BYTES = 512 * 1024

ORDER = 10
MEMORY = "Memory latency"
TLB = "TLB and carveout"


def level_table(report, prefix, stride, names=None, tolerance=0.15, rule=None):
    """Levels of one chase with cycles, ns and the spread of each level over repetitions. `rule` reads
    the levels off the (size, cycles) points: levels.find_levels at `tolerance` by default."""
    rows = levels.chase_rows(report, prefix, "cycles_per_load", stride)
    if not rows:
        return []
    points = levels.points(report, prefix, "cycles_per_load", stride)
    ns = dict(levels.points(report, prefix, "ns_per_load", stride))
    l2 = float(report.context.get("gpu_l2_bytes", 0) or 0)
    found = rule(points) if rule else levels.find_levels(points, tolerance, largest_cache=l2 or None)
    repetitions = defaultdict(lambda: defaultdict(list))  # repetition -> size -> cycles
    for row in rows:
        repetitions[row.get("repetition_index", 0)][levels.working_set(row)].append(row["cycles_per_load"])
    for index, level in enumerate(found):
        if names:
            level["name"] = names[index] if index < len(names) else f"level {index + 1}"
        level["ns"] = statistics.median(ns[s] for s in level["sizes"])
        per_repetition = [statistics.median(statistics.mean(sizes[s]) for s in level["sizes"] if s in sizes)
                          for sizes in repetitions.values() if any(s in sizes for s in level["sizes"])]
        level["repetitions"] = len(per_repetition)
        mean = statistics.mean(per_repetition)
        level["spread"] = (max(per_repetition) - min(per_repetition)) / mean if mean else 0.0
    return found


# The check and quick presets sweep pages up to 4 GiB; the full preset goes on to the GPU's memory, where a second,
# larger step (an H200: +10% past 64 GiB) would win the one-step fit on some GPUs and not others (x4j,
# docs/results/2026-11-28-full-node-pair). So the nearest TLB is read over the same span in every preset.
NEAR_TLB_SPAN = 4 * 2**30
LAST_TLB_STEP = 0.05  # the last level's miss: far above the 1% between neighbouring sizes on its plateau


def tlb_levels(report):
    """TLB reach from the page-stride chase. A translation miss adds about 3% to an L2 hit, no more than
    the spread between neighbouring sizes, so no tolerance separates them reliably: the reach is the
    split that best fits one step (levels.find_step) over sizes up to NEAR_TLB_SPAN."""
    return level_table(report, "PointerChase/tlb", None, ["all pages mapped by the nearest TLB", "next TLB level"],
                       rule=lambda points: levels.find_step([p for p in points if p[0] <= NEAR_TLB_SPAN]))


def last_tlb_step(report):
    """(the sizes from NEAR_TLB_SPAN to the first LAST_TLB_STEP above the plateau before it, that size's cycles, the
    plateau's) or None: the reach of the last translation level before page walks, where the sweep's largest sets (as
    many as fit the GPU's free memory) get there (an H100's 80 GB do not)."""
    points = [p for p in levels.points(report, "PointerChase/tlb", "cycles_per_load", None) if p[0] >= NEAR_TLB_SPAN]
    for index in range(1, len(points)):
        plateau = statistics.mean(c for _, c in points[:index])
        if points[index][1] > plateau * (1 + LAST_TLB_STEP):
            return [s for s, _ in points[:index + 1]], points[index][1], plateau
    return None


def carveout_edges(report):
    """{carveout percent: (first level, latency of the level above or None, rows)} from PointerChase/carveout."""
    carveouts = defaultdict(list)
    for row in levels.chase_rows(report, "PointerChase/carveout"):
        carveouts[int(row.args["carveout"])].append(row)
    edges = {}
    for percent, rows in sorted(carveouts.items()):
        by_size = defaultdict(list)
        for row in rows:
            by_size[levels.working_set(row)].append(float(row["cycles_per_load"]))
        found = levels.find_levels(sorted((s, statistics.mean(c)) for s, c in by_size.items()))
        if found:
            edges[percent] = (found[0], found[1]["latency"] if len(found) > 1 else None, rows)
    return edges


def card(report):
    yield from memory(report)
    yield from shared(report)
    yield from by_sm(report)
    yield from tlb_and_carveout(report)


def level_sms(report, prefix, level):
    """The SMs the rows of a level ran on (the `sm` counter), as a sorted tuple."""
    sizes = set(level["sizes"])
    return tuple(sorted({int(r["sm"]) for r in levels.chase_rows(report, prefix, "cycles_per_load", 128)
                         if "sm" in r and levels.working_set(r) in sizes}))


def sweeps_over_sms(report):
    """{"L2": row, "L2 (far)": row}: the PointerChase/l2_sms rows (every SM chased in turn); the set
    within the near half of L2 is the near one."""
    l2 = float(report.context.get("gpu_l2_bytes", 0) or 0)
    found = {}
    for row in report.rows("PointerChase/l2_sms", "median_over_sms"):
        found["L2" if levels.working_set(row) <= l2 / 2 else "L2 (far)"] = row
    return found


def spread_over_sms_text(row):
    low, high = row.value("min_over_sms"), row.value("max_over_sms")
    return (f"{low:.1f} cycles on SM {int(row['fastest_sm'])} .. {high:.1f} on SM {int(row['slowest_sm'])} "
            f"({(high - low) / low:.1%} above the fastest)")


def memory(report):
    """Load-to-use latency per level from the direct chase (`p = *p`; for L2, the median over every SM
    where the run swept them), the indexed chase's reading beside it, and their difference (the
    address arithmetic the indexed loop adds per load) where both ran on the same SM."""
    direct = {level["name"]: level for level in level_table(report, "PointerChase/direct", 128)}
    indexed = {level["name"]: level for level in level_table(report, "PointerChase/cached", 128)}
    sweeps = sweeps_over_sms(report)
    for name in ("L1", "L2", "L2 (far)", "DRAM"):
        key = "memory." + name.lower().replace(" (far)", "_far")
        # The L1 and the near L2 hit are the SM's (every sm_90 part reads the same cycles); the far L2 and DRAM
        # depend on the product's L2 size and memory.
        by = "sm" if name in ("L1", "L2") else "part"
        level, index_level = direct.get(name), indexed.get(name)
        sweep = sweeps.get(name)
        if sweep is not None:
            cycles = sweep.value("median_over_sms")
            ns = cycles * 1e3 / sweep.value("sm_mhz") if sweep.value("sm_mhz") else None
            source = f"{sweep.short_name} (1 row, every SM)"
            yield Value(key + ".cycles", MEMORY, f"{name} load-to-use latency", cycles, "cycles", source,
                        f"{cycles:.1f} cycles, {ns:.1f} ns: median of {int(sweep['sms_swept'])} SMs", set_by=by)
            yield Value(key + ".ns", MEMORY, f"{name} load-to-use latency (ns)", ns, "ns", source)
            low, high = sweep.value("min_over_sms"), sweep.value("max_over_sms")
            yield Value(key + ".sm_spread", MEMORY, f"{name} load-to-use latency over SMs", (high - low) / low,
                        "of the fastest", source, spread_over_sms_text(sweep))
        if level is None:
            if name != "L2 (far)" and sweep is None:
                yield Value.missing(key + ".cycles", MEMORY, f"{name} load-to-use latency", "cycles")
        else:
            source = Sweep("PointerChase/direct", level["sizes"], {"stride": 128})
            if sweep is None:
                yield Value(key + ".cycles", MEMORY, f"{name} load-to-use latency", level["latency"], "cycles",
                            source, f"{level['latency']:.1f} cycles, {level['ns']:.1f} ns", set_by=by)
                yield Value(key + ".ns", MEMORY, f"{name} load-to-use latency (ns)", level["ns"], "ns", source)
            if level["max_bytes"] is not None:
                yield Value(key + ".capacity_bytes", MEMORY, f"{name} capacity edge", level["min_bytes"], "bytes",
                            source, f"holds {size_text(level['min_bytes'])}, misses from {size_text(level['max_bytes'])}",
                            bracket=(level["min_bytes"], level["max_bytes"]), set_by="sm" if name == "L1" else "part")
        if index_level is not None:
            source = Sweep("PointerChase/cached", index_level["sizes"], {"stride": 128})
            text = f"{index_level['latency']:.1f} cycles"
            if level is not None:
                on = level_sms(report, "PointerChase/cached", index_level)
                direct_on = level_sms(report, "PointerChase/direct", level)
                if len(on) == 1 and on == direct_on:
                    text += (f", {index_level['latency'] - level['latency']:+.1f} for the index-to-address arithmetic "
                             f"(both on SM {on[0]})")
                else:
                    text += (f" (SM {', '.join(map(str, on))}; load-to-use on SM {', '.join(map(str, direct_on))}: "
                             "different SMs, no difference stated)")
            yield Value(key + ".indexed_cycles", MEMORY, f"{name} latency, indexed chase", index_level["latency"],
                        "cycles", source, text, set_by=by)


def shared(report):
    for prefix, key, label in (("PointerChase/shared_direct", "memory.shared.cycles", "shared-memory load-to-use latency"),
                               ("PointerChase/shared", "memory.shared.indexed_cycles",
                                "shared-memory latency, indexed chase")):
        rows = report.rows(prefix, "cycles_per_load")
        if not rows:
            yield Value.missing(key, MEMORY, label, "cycles")
            continue
        cycles = statistics.median(float(r["cycles_per_load"]) for r in rows)
        ns = statistics.median(float(r["ns_per_load"]) for r in rows)
        yield Value(key, MEMORY, label, cycles, "cycles", Sweep(prefix, [r.args["bytes"] for r in rows], {"stride": 4}),
                    f"{cycles:.1f} cycles, {ns:.1f} ns", set_by="sm")


def by_sm(report):
    """The spread of a level's latency over the SMs the direct chase was pinned to."""
    sets = {}
    for row in report.rows("PointerChase/direct_sm", "cycles_per_load"):
        sets.setdefault(int(row.args["bytes"]), []).append(row)
    for size, rows in sorted(sets.items()):
        cycles = [float(r["cycles_per_load"]) for r in rows]
        low, high = min(cycles), max(cycles)
        sms = sorted(int(r["sm"]) for r in rows)
        yield Value(f"memory.by_sm.{size}.spread", MEMORY, f"latency by SM at {size_text(size)}", (high - low) / low,
                    "of the fastest", f"PointerChase/direct_sm/bytes:{size}/stride:128/sm:{sms[0]}..{sms[-1]} "
                                      f"({len(rows)} SMs)",
                    f"{low:.1f} .. {high:.1f} cycles over {len(rows)} SMs ({(high - low) / low:.1%})")


def tlb_and_carveout(report):
    found = tlb_levels(report)
    label = "TLB reach (2 MiB pages, L2-resident data)"
    if len(found) >= 2:
        first = found[0]
        source = Sweep("PointerChase/tlb", first["sizes"] + found[1]["sizes"], {"stride": 2097152})
        yield Value("tlb.reach_bytes", TLB, label, first["min_bytes"], "bytes", source,
                    f"{size_text(first['min_bytes'])} .. {size_text(first['max_bytes'])}, then "
                    f"+{found[1]['latency'] - first['latency']:.1f} cycles per load",
                    bracket=(first["min_bytes"], first["max_bytes"]))
    else:
        yield Value.missing("tlb.reach_bytes", TLB, label, "bytes")
    last = last_tlb_step(report)
    if last:
        sizes, cycles, plateau = last
        reach, beyond = sizes[-2:]
        yield Value("tlb.last_reach_bytes", TLB, "Last TLB level's reach (2 MiB pages)", reach, "bytes",
                    Sweep("PointerChase/tlb", sizes, {"stride": 2097152}),
                    f"{size_text(reach)} .. {size_text(beyond)}: {plateau:.1f} then {cycles:.1f} cycles per load",
                    bracket=(reach, beyond))
    edges = carveout_edges(report)
    for percent in (0, 50, 100):
        label = f"L1 capacity with {percent}% preferred as shared"
        if percent not in edges or edges[percent][0]["max_bytes"] is None:
            yield Value.missing(f"carveout.{percent}.l1_bytes", TLB, label, "bytes")
            continue
        first, _, rows = edges[percent]
        yield Value(f"carveout.{percent}.l1_bytes", TLB, label, first["min_bytes"], "bytes",
                    Sweep("PointerChase/carveout", [r.args["bytes"] for r in rows], {"carveout": percent}),
                    f"holds {size_text(first['min_bytes'])}, misses from {size_text(first['max_bytes'])}",
                    bracket=(first["min_bytes"], first["max_bytes"]), set_by="sm")


LOOP_RULES = {
    "direct_ca": {"kernel": r"20pointer_chase_directILNS0_8LoadPathE0E",
                  "sass": ({"LDG"} | SASS_CONTROL, r"^LDG\.E\.64\b"),
                  "ptx": (("ld.global.ca.u64",) + PTX_CONTROL, "ld.global.ca.u64")},
    "direct_cg": {"kernel": r"20pointer_chase_directILNS0_8LoadPathE1E",
                  "sass": ({"LDG"} | SASS_CONTROL, r"^LDG\.E\.64\.STRONG\.GPU\b"),
                  "ptx": (("ld.global.cg.u64",) + PTX_CONTROL, "ld.global.cg.u64")},
    "shared_direct": {"kernel": r"27pointer_chase_shared_direct",
                      "sass": ({"LDS"} | SASS_CONTROL, r"^LDS\b"), "ptx": (("ld.shared.u32",) + PTX_CONTROL, "ld.shared.u32")},
}
# The indexed chase turns each loaded index into an address (IMAD.WIDE; mul.wide in PTX): not a direct chase.
LOOP_NEGATIVE = {"indexed_as_direct": {"kernel": r"13pointer_chaseILNS0_8LoadPathE0ELj4ELi0E", "rule": "direct_ca"}}
