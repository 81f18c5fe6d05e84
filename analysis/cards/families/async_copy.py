"""AsyncCopy: what a TMA tile load (and Ampere's cp.async) costs against a plain load of the same lines,
from L2 and from DRAM, with the mbarrier round trip every TMA step pays set apart; the TMA's cost per
byte of tile; and the bandwidth each path reaches (docs/experiments/async_copy.md)."""
from analysis.model import values
from analysis.model.values import at_an_edge, Value, size_text
from analysis.cards.physics import cases, one
from analysis.cards.loop_rules import SASS_CONTROL

FAMILIES = ("AsyncCopy",)
# compare.py's class of measurement of each result (analysis/cards/noise.py): which calibrated noise applies.
NOISE = {"cycles_per_load": "memory_latency", "ns_per_load": "memory_latency", "cycles_per_copy": "memory_latency",
         "ns_per_copy": "memory_latency", "bytes_per_second": "dram_bandwidth", "bytes_per_clock_per_sm": "dram_bandwidth",
         "fraction_of_peak": "dram_bandwidth"}



def noise_class(row, quantity, context):
    """A copy's set of a size near this chip's L2 (its read and written lines together) reads as the L2's placement
    falls: 1.6-2.6% apart between two runs of one H100 at 25 MiB against 50 MiB of L2 (2026-11-27-trust)."""
    if quantity.startswith(("bytes_per", "fraction")) and "bytes" in row.args and \
            at_an_edge(2.0 * float(row.args["bytes"]), context):
        return "capacity_edge"
    return None


ORDER = 16
SECTION = "Asynchronous copies (TMA, cp.async)"
LINE = 128


def by_set(rows):
    """{bytes: row} for rows of one kind."""
    return {int(r.args["bytes"]): r for r in rows}


def tma_values(report):
    loads = by_set(report.rows("AsyncCopy/load_latency", "cycles_per_load"))
    to_use = by_set(report.rows("AsyncCopy/load_to_use_latency", "cycles_per_load"))
    tma = by_set(report.rows("AsyncCopy/tma_latency", "cycles_per_load", tile=LINE))
    bulk = by_set(report.rows("AsyncCopy/bulk_latency", "cycles_per_load", tile=LINE))
    barrier = report.rows("AsyncCopy/mbarrier_latency", "cycles_per_load")
    if not tma:
        yield values.not_run(report, "AsyncCopy/tma_latency", "memory.async.tma_latency", SECTION,
                             "TMA tile load", "cycles")
        return
    sets = sorted(tma)
    for level, bytes_ in (("L2", sets[0]), ("DRAM", sets[-1])) if len(sets) > 1 else (("L2", sets[0]),):
        row = tma[bytes_]
        text = f"{row.value('cycles_per_load'):.0f} cycles per 128-byte tile ({size_text(bytes_)} set)"
        source = [row]
        if bytes_ in loads:
            difference = row.value("cycles_per_load") - loads[bytes_].value("cycles_per_load")
            text += f"; ld.global.cg of the same lines {loads[bytes_].value('cycles_per_load'):.0f}: {difference:+.0f}"
            source.append(loads[bytes_])
        if bytes_ in to_use:
            difference = row.value("cycles_per_load") - to_use[bytes_].value("cycles_per_load")
            text += f"; load-to-use {to_use[bytes_].value('cycles_per_load'):.0f}: {difference:+.0f}"
            source.append(to_use[bytes_])
        if bytes_ in bulk:
            text += f"; 1-D bulk copy {bulk[bytes_].value('cycles_per_load'):.0f}"
            source.append(bulk[bytes_])
        if barrier:
            text += f"; mbarrier arrive + wait + shared load alone {barrier[0].value('cycles_per_load'):.0f}"
            source.append(barrier[0])
        yield Value(f"memory.async.tma_latency_{level.lower()}", SECTION, f"TMA tile load from {level}",
                    row.value("cycles_per_load"), "cycles", ", ".join(r.short_name for r in source), text)
    # The cost of a bigger tile from L2: a least-squares line over tile sizes.
    tiles = sorted(report.rows("AsyncCopy/tma_latency", "cycles_per_load", bytes=sets[0]), key=lambda r: r.args["tile"])
    if len(tiles) >= 3:
        xs = [r.args["tile"] / 1024 for r in tiles]
        ys = [r.value("cycles_per_load") for r in tiles]
        mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
        text = (f"{slope:.1f} cycles per KiB ({1024 / slope:.0f} B/clk for one SM's single tile), "
                f"{mean_y - slope * mean_x:.0f} cycles at zero bytes; tiles {size_text(tiles[0].args['tile'])} to "
                f"{size_text(tiles[-1].args['tile'])}")
        source = f"AsyncCopy/tma_latency/bytes:{sets[0]}/tile:{tiles[0].args['tile']}..{tiles[-1].args['tile']}"
        yield Value("memory.async.tma_cycles_per_kib", SECTION, "TMA tile load, cost per KiB (L2)", slope,
                    "cycles/KiB", f"{source} ({len(tiles)} rows)", text)
    stream = report.rows("AsyncCopy/tma_bandwidth", "bytes_per_second")
    if stream:
        largest = max(int(r.args["bytes"]) for r in stream)
        for level, rows in (("DRAM", [r for r in stream if r.args["bytes"] == largest]),
                            ("L2", [r for r in stream if r.args["bytes"] != largest])):
            if not rows:
                continue
            top = max(rows, key=lambda r: r.value("bytes_per_second"))
            text = (f"{top.value('bytes_per_second') / 1e12:.2f} TB/s ({top.value('bytes_per_clock_per_sm'):.1f} B/clk/SM) "
                    f"with {size_text(top.args['tile'])} tiles x {top.args['stages']} stages per SM")
            if top.value("fraction_of_peak") is not None:
                text += f", {top.value('fraction_of_peak'):.0%} of the DRAM peak"
            yield Value(f"memory.async.tma_bandwidth_{level.lower()}", SECTION, f"TMA tile loads from {level}",
                        top.value("bytes_per_second"), "bytes/s", top.short_name, text)


L1_SET_MAX = 64 * 1024  # the L1 set is 16 KiB; every L1 is larger than this


def value_set(sets, level, l2_bytes):
    """The set of `sets` (bytes) at `level` ("L1" or "L2"), else None: a value always speaks for the same level,
    whichever sets the preset (quick or full) measured."""
    if level == "L1":
        return next((b for b in sorted(sets) if b <= L1_SET_MAX), None)
    in_l2 = [b for b in sorted(sets) if b > L1_SET_MAX and (not l2_bytes or b <= l2_bytes / 2)]
    return in_l2[0] if in_l2 else None


def cp_async_values(report):
    l2_bytes = float(report.context.get("gpu_l2_bytes", 0) or 0)
    # The level each value is read at, the one the quick preset measures: .ca's 16-byte copy where it caches
    # (L1); the 4-byte and the .cg copies from L2.
    for width, via, label, level in ((16, "cp_async_ca", "cp.async.ca 16 B", "L1"),
                                     (4, "cp_async_ca", "cp.async.ca 4 B", "L2"),
                                     (16, "cp_async_cg", "cp.async.cg 16 B", "L2")):
        rows = by_set(report.rows(f"AsyncCopy/copy_latency_{via}", "cycles_per_copy", width=width))
        register_via = via.replace("cp_async", "ld_st")
        registers = by_set(report.rows(f"AsyncCopy/copy_latency_{register_via}", "cycles_per_copy", width=width))
        key = f"memory.async.{via}_{width}_latency"
        if not rows:
            yield values.not_run(report, f"AsyncCopy/copy_latency_{via}", key, SECTION, label, "cycles")
            continue
        parts, source = [], []
        for bytes_ in sorted(rows):
            part = f"{size_text(bytes_)}: {rows[bytes_].value('cycles_per_copy'):.0f}"
            source.append(rows[bytes_])
            if bytes_ in registers:
                part += f" (load + store {registers[bytes_].value('cycles_per_copy'):.0f})"
                source.append(registers[bytes_])
            parts.append(part)
        at = value_set(rows, level, l2_bytes)
        yield Value(key, SECTION, f"{label} to shared memory, then a shared load",
                    rows[at].value("cycles_per_copy") if at is not None else None,
                    "cycles", ", ".join(r.short_name for r in source),
                    "cycles per dependent copy by set: " + "; ".join(parts)
                    + ("" if at is not None else f" (none from {level}, the set this value is read at)"),
                    set_by="sm" if level == "L1" else "part")
    for via, label in (("cp_async_cg", "cp.async.cg 16 B"), ("ld_st_cg", "ld.global.cg + st.shared 16 B")):
        rows = report.rows(f"AsyncCopy/copy_bandwidth_{via}", "bytes_per_second", width=16)
        key = f"memory.async.{via}_bandwidth_dram"
        if not rows:
            yield values.not_run(report, f"AsyncCopy/copy_bandwidth_{via}", key, SECTION, label, "bytes/s")
            continue
        row = max(rows, key=lambda r: r.args["bytes"])
        text = f"{row.value('bytes_per_second') / 1e12:.2f} TB/s from a {size_text(row.args['bytes'])} set"
        if row.value("fraction_of_peak") is not None:
            text += f", {row.value('fraction_of_peak'):.0%} of the DRAM peak"
        yield Value(key, SECTION, f"{label}, global to shared (DRAM)", row.value("bytes_per_second"), "bytes/s",
                    row.short_name, text)


def card(report):
    yield from tma_values(report)
    yield from cp_async_values(report)


# --- physics: what the experiment exists to show, with wide margins (test/validation/validate_physics.py) ---

def check_data_movers(rows):
    """Another block's shared memory is 3-20x farther than the block's own and slower to stream; a TMA or
    bulk step costs at least a plain load of the same line (90%), more from DRAM than from L2 and more for
    a bigger tile (within 2%); a cp.async step at least a load and store through registers (95%); no
    DRAM-sized row moves more than the theoretical bandwidth (2% for timing noise)."""
    results = []
    local = one(rows, "Cluster/smem_latency")
    for remote in cases(rows, "Cluster/dsmem_latency"):
        if local and remote.args.get("rank", 0) > 0:
            ratio = remote["cycles_per_load"] / local["cycles_per_load"]
            results.append((remote.name + " farther than own", 3 <= ratio <= 20, f"{ratio:.1f}x ld.shared"))
    for remote in cases(rows, "Cluster/dsmem_bandwidth"):
        own = one(rows, "Cluster/dsmem_bandwidth", cluster=1, width=remote.args["width"], write=remote.args["write"])
        if own and remote.args["cluster"] > 1:
            results.append((remote.name + " below own", remote["bytes_per_clock_per_block"] < own["bytes_per_clock_per_block"],
                            f"{remote['bytes_per_clock_per_block']:.1f} vs {own['bytes_per_clock_per_block']:.1f} B/clk"))
    for step in ("tma_latency", "bulk_latency"):
        by_set = {}
        for row in cases(rows, f"AsyncCopy/{step}"):
            by_set.setdefault(row.args["bytes"], []).append(row)
            load = one(rows, "AsyncCopy/load_to_use_latency", bytes=row.args["bytes"])
            if load and row.args["tile"] == 128:
                results.append((row.name + " not faster than a load", row["cycles_per_load"] >= 0.9 * load["cycles_per_load"],
                                f"{row['cycles_per_load']:.0f} vs {load['cycles_per_load']:.0f} cycles"))
        for tiles in by_set.values():
            tiles.sort(key=lambda r: r.args["tile"])
            for small, big in zip(tiles, tiles[1:]):
                results.append((big.name + " no cheaper than a smaller tile",
                                big["cycles_per_load"] >= 0.98 * small["cycles_per_load"],
                                f"{big['cycles_per_load']:.0f} vs {small['cycles_per_load']:.0f} cycles"))
        if len(by_set) > 1:
            near, far = min(by_set), max(by_set)
            for row in by_set[far]:
                same = [r for r in by_set[near] if r.args["tile"] == row.args["tile"]]
                if same:
                    results.append((row.name + " DRAM above L2", row["cycles_per_load"] > same[0]["cycles_per_load"],
                                    f"{row['cycles_per_load']:.0f} vs {same[0]['cycles_per_load']:.0f} cycles"))
    for via, reference in (("cp_async_ca", "ld_st_ca"), ("cp_async_cg", "ld_st_cg")):
        for row in cases(rows, f"AsyncCopy/copy_latency_{via}"):
            plain = one(rows, f"AsyncCopy/copy_latency_{reference}", bytes=row.args["bytes"], width=row.args["width"])
            if plain:
                results.append((row.name + " not faster than load + store", row["cycles_per_copy"] >= 0.95 * plain["cycles_per_copy"],
                                f"{row['cycles_per_copy']:.0f} vs {plain['cycles_per_copy']:.0f} cycles"))
    for row in rows.values():
        if row.registered.startswith("AsyncCopy/") and "fraction_of_peak" in row:
            results.append((row.name + " under the DRAM peak", row["fraction_of_peak"] <= 1.02, f"{row['fraction_of_peak']:.3f}"))
    return results


def physics(rows, report):
    """The physics checks of validate_physics.py for this family: [(name, ok, detail)]."""
    return check_data_movers(rows)


# The timed-loop audit (analysis/cards/loop_rules.py) of kernels/memory/async_copy.cuh. A TMA step is
# arrive.expect_tx (SYNCS.ARRIVE), the copy (UTMALDG / UBLKCP, issued by one elected lane: ELECT, PLOP3,
# BRA.U.ANY, its operands moved to uniform registers), the wait (SYNCS.PHASECHK.TRYWAIT) and the shared load of
# the next index; a cp.async step LDGSTS, LDGDEPBAR, DEPBAR and the shared load (ptxas adds dummy LDS RZ before
# each LDGSTS on sm_90); the register path LDG, STS and LDS. A tuple of required forms: all must appear.
_TMA_SASS = {"SYNCS", "R2UR", "UIMAD", "PLOP3", "ELECT", "SHF", "LDS", "LOP3", "IMAD", "ULOP3", "LEA"} | SASS_CONTROL
_CP_ASYNC_SASS = {"IMAD", "LDS", "LDGSTS", "LDGDEPBAR", "DEPBAR"} | SASS_CONTROL
_LOAD_STORE_SASS = {"IMAD", "LDG", "STS", "LDS", "MOV"} | SASS_CONTROL
_WAIT = r"^SYNCS\.PHASECHK\.TRANS64\.TRYWAIT\b"
LOOP_RULES = {
    rule: {"kernel": kernel, "sass": (allowed, required)}
    for rule, kernel, allowed, required in (
        ("tma_tensor_chase", r"9tma_chaseILNS0_7TmaStepE0E", _TMA_SASS | {"UTMALDG"}, (r"^UTMALDG\.2D\b", _WAIT, r"^LDS\b")),
        ("tma_bulk_chase", r"9tma_chaseILNS0_7TmaStepE1E", _TMA_SASS | {"UBLKCP"}, (r"^UBLKCP\.S\.G\b", _WAIT, r"^LDS\b")),
        ("tma_barrier_chase", r"9tma_chaseILNS0_7TmaStepE2E", _TMA_SASS,
         (r"^SYNCS\.ARRIVE\.TRANS64\b", _WAIT, r"^LDS\b")),
        ("cp_async_ca_chase", r"10copy_chaseILNS0_7CopyViaE2ELi16E", _CP_ASYNC_SASS,
         (r"^LDGSTS\.E\.128\b", r"^DEPBAR\b", r"^LDS R")),
        ("cp_async_ca4_chase", r"10copy_chaseILNS0_7CopyViaE2ELi4E", _CP_ASYNC_SASS, (r"^LDGSTS\.E\s", r"^DEPBAR\b", r"^LDS R")),
        ("cp_async_cg_chase", r"10copy_chaseILNS0_7CopyViaE3ELi16E", _CP_ASYNC_SASS,
         (r"^LDGSTS\.E\.BYPASS\.128\b", r"^DEPBAR\b", r"^LDS R")),
        ("load_store_ca_chase", r"10copy_chaseILNS0_7CopyViaE0ELi16E", _LOAD_STORE_SASS,
         (r"^LDG\.E\.128\.STRONG\.SM\b", r"^STS\.128\b", r"^LDS R")),
        ("load_store_cg_chase", r"10copy_chaseILNS0_7CopyViaE1ELi16E", _LOAD_STORE_SASS,
         (r"^LDG\.E\.128\.STRONG\.GPU\b", r"^STS\.128\b", r"^LDS R")))
}
# A chase of mbarrier round trips copies nothing: it is not a TMA chase (SASS only).
LOOP_NEGATIVE = {"barrier_as_tma": {"kernel": r"9tma_chaseILNS0_7TmaStepE2E", "rule": "tma_tensor_chase"}}
