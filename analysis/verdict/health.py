"""A GPU's health state (the report's gpubench_health: NVML's readings at the run's start and end, the Xids during it
and in the kernel log; common/detail/gpu_health.h) as coded findings, each with its action: "drain" where a job on the
GPU cannot be trusted, "warn" where operators keep running (what DCGM's level 1 and Azure's node checks read, judged
the way docs/verdicts.md lists). A finding of a planted fault (GPUBENCH_PLANT_HEALTH) says so and shows the real
reading beside it."""

# NVLinks an SXM board of these SKUs has; another board's links are counted, not judged.
NVLINKS_OF_SKU = {"NVIDIA H100 80GB HBM3": 18, "NVIDIA H200": 18}
# Xids that take a GPU out of service (uncorrectable ECC and its containment, row remap failure, NVLink error, fallen
# off the bus, GSP errors): in the kernel log since boot they are a warning (the GPU may have been reset since);
# reported by NVML during the run they drain.
CRITICAL_XIDS = {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140}
# DCGM's rule: a GPU with 60 or more retired pages is replaced.
RETIRED_PAGES_LIMIT = 60
# DCGM's rule: NVLink CRC errors at 100 per second or more fail the link.
NVLINK_CRC_PER_SECOND = 100.0
HW_CLOCK_REASONS = ("hw_slowdown", "hw_thermal", "hw_power_brake")
DRAIN, WARN = "drain", "warn"


def _number(reading, field):
    value = (reading or {}).get(field)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _grew(start, end, fields):
    """How much the sum of `fields` grew from start to end (None where either reading lacks them)."""
    before = [_number(start, f) for f in fields]
    after = [_number(end, f) for f in fields]
    if None in before or None in after:
        return None
    return sum(after) - sum(before)


class _Findings(list):
    def add(self, code, action, text, real=None):
        self.append({"code": code, "action": action, "text": text} | ({"real": real} if real is not None else {}))


def _reading_findings(out, start, end, real_end, gpu_name):
    """Findings of the start and end readings."""
    def real(field):
        return (real_end or {}).get(field) if real_end is not None else None

    count = _number(end, "ecc_uncorrected_volatile")
    if count:
        out.add("ecc_uncorrectable", DRAIN, f"{count} uncorrectable ECC error(s) since the driver loaded",
                real("ecc_uncorrected_volatile"))
    grew = _grew(start, end, ["ecc_uncorrected_aggregate"])
    if grew:
        out.add("ecc_uncorrectable_during_run", DRAIN, f"{grew} uncorrectable ECC error(s) during the run")
    grew = _grew(start, end, ["ecc_corrected_volatile"])
    if grew:
        out.add("ecc_correctable_during_run", WARN, f"{grew} correctable ECC error(s) during the run")
    if end.get("retirement_pending") is True:
        out.add("page_retirement_pending", DRAIN, "a page retirement is pending (a GPU reset applies it)",
                real("retirement_pending"))
    pages = [_number(end, "retired_pages_sbe"), _number(end, "retired_pages_dbe")]
    if None not in pages and sum(pages) >= RETIRED_PAGES_LIMIT:
        out.add("retired_pages_limit", DRAIN, f"{sum(pages)} retired pages (at least {RETIRED_PAGES_LIMIT}: replace)")
    if end.get("remap_failed") is True:
        out.add("row_remap_failed", DRAIN, "a row remapping failed (the GPU needs service)", real("remap_failed"))
    if end.get("remap_pending") is True:
        out.add("row_remap_pending", DRAIN, "a row remapping is pending (a GPU reset applies it)", real("remap_pending"))
    none_left = _number(end, "remap_banks_none_left")
    if none_left:
        out.add("row_remap_bank_exhausted", WARN, f"{none_left} memory bank(s) have no spare row left")
    active, expected = _number(end, "nvlinks_active"), NVLINKS_OF_SKU.get(gpu_name)
    # No link active is a GPU alone (a one-GPU VM has its board's links down, no peer to train with): the node's
    # other GPUs decide that case (node_findings); some links up and not all is a link down.
    if active and expected and active < expected:
        out.add("nvlink_inactive", DRAIN, f"{active} of {expected} NVLinks active", real("nvlinks_active"))
    link, rate = worst_crc_link(start, end)
    if rate is not None and rate >= NVLINK_CRC_PER_SECOND:
        out.add("nvlink_crc_errors", DRAIN, f"NVLink {link}'s CRC errors at {rate:.0f}/s during the run (at least "
                                            f"{NVLINK_CRC_PER_SECOND:.0f}/s)")
    for field, code in (("nvlink_replay", "nvlink_replays"), ("nvlink_recovery", "nvlink_recoveries")):
        grew = _grew(start, end, [field])
        if grew:
            out.add(code, WARN, f"{grew} NVLink {field.split('_')[1]}(s) during the run")
    trained = (_number(end, "pcie_gen_under_load"), _number(end, "pcie_width_under_load"))
    most_gen = min(g for g in (_number(end, "pcie_gen_max"), _number(end, "pcie_gen_max_gpu"), 99) if g)
    most_width = _number(end, "pcie_width_max")
    if trained[0] and (trained[0] < most_gen < 99 or (most_width and trained[1] and trained[1] < most_width)):
        out.add("pcie_link_degraded", DRAIN, f"PCIe link trained at Gen{trained[0]} x{trained[1]} under load, of "
                                             f"Gen{most_gen} x{most_width}", real("pcie_gen_under_load"))
    grew = _grew(start, end, ["pcie_replays"])
    if grew:
        out.add("pcie_replays", WARN, f"{grew} PCIe replay(s) during the run")
    held = [r for r in (end.get("clock_event_names") or []) if r in HW_CLOCK_REASONS]
    if held:
        out.add("clocks_held_by_hardware", WARN, "clocks held down by the hardware at the run's end: " + ", ".join(held))
    if end.get("persistence_mode") is False:
        out.add("persistence_off", WARN, "persistence mode off (each job pays the driver's start)")
    state = end.get("fabric_state")
    if state is not None and (state != "completed" or end.get("fabric_status") not in (None, "Success")):
        out.add("fabric_not_ready", DRAIN, f"Fabric Manager: {state}" +
                (f", {end.get('fabric_status')}" if state == "completed" else ""))


def worst_crc_link(start, end):
    """(link, CRC errors per second during the run) of the link whose count grew fastest, or (None, None). Healthy
    H200s' links count some: 109-457 over all 18 links in an 8 s check (docs/results/2026-11-27-node-health)."""
    seconds = (_number(end, "unix_seconds") or 0) - (_number(start, "unix_seconds") or 0)
    before, after = start.get("nvlink_crc_by_link"), end.get("nvlink_crc_by_link")
    if seconds <= 0 or not isinstance(before, list) or not isinstance(after, list) or len(before) != len(after):
        return None, None
    grew = [(b - a) / seconds for a, b in zip(before, after)]
    link = max(range(len(grew)), key=grew.__getitem__) if grew else None
    return (link, grew[link]) if link is not None else (None, None)


def findings(context):
    """[{"code", "action", "text"[, "real"]}] of one GPU's context (its gpubench_health), [] without one."""
    record = context.get("gpubench_health")
    if not isinstance(record, dict) or not record:
        return []
    out = _Findings()
    start, end = record.get("start") or {}, record.get("end") or {}
    if "unavailable" in end:
        out.add("health_unread", WARN, f"health state not read: {end['unavailable']}")
    else:
        real_end = (record.get("real") or {}).get("end") if "planted" in record else None
        _reading_findings(out, start, end, real_end, context.get("gpu_name"))
    during = record.get("xid_during")
    if isinstance(during, list) and during:
        out.add("xid_during_run", DRAIN, "Xid " + ", ".join(str(x) for x in during) + " reported during the run")
    logged = record.get("kernel_log_xids")
    if isinstance(logged, list):
        critical = sorted({x["xid"] for x in logged if x.get("xid") in CRITICAL_XIDS})
        if critical:
            out.add("xid_in_kernel_log", WARN, "critical Xid " + ", ".join(map(str, critical)) +
                    " in the kernel log since boot")
    if "planted" in record:
        for f in out:
            f["planted"] = record["planted"]
    return list(out)


def drains(found):
    return [f for f in found if f["action"] == DRAIN]


def warnings(found):
    return [f for f in found if f["action"] == WARN]


def node_findings(contexts):
    """Findings of a node's GPUs together ([(gpu, context)]): a GPU with no NVLink active beside others with theirs up
    (drain), boards of one SKU on different VBIOS or drivers (warn)."""
    out = _Findings()
    by_name = {}
    for gpu, context in contexts:
        end = (context.get("gpubench_health") or {}).get("end") or {}
        by_name.setdefault(context.get("gpu_name"), []).append((gpu, end))
    for name, gpus in by_name.items():
        down = [gpu for gpu, end in gpus if end.get("nvlinks_active") == 0 and NVLINKS_OF_SKU.get(name)]
        if down and any(_number(end, "nvlinks_active") for _, end in gpus):
            out.add("nvlink_inactive", DRAIN, f"no NVLink active on GPU {', '.join(map(str, down))} while the "
                                              f"node's other {name} GPUs have theirs up")
    for name, gpus in by_name.items():
        for field, code in (("vbios", "vbios_mismatch"), ("driver", "driver_mismatch")):
            seen = {}
            for gpu, end in gpus:
                if end.get(field):
                    seen.setdefault(end[field], []).append(gpu)
            if len(seen) > 1:
                out.add(code, WARN, f"{name} GPUs on different {field} versions: " +
                        "; ".join(f"{v} (GPU {', '.join(str(g) for g in gs)})" for v, gs in sorted(seen.items())))
    return list(out)


def table(context):
    """The card's lines of the health state: each reading's fields at the end (and the start where they moved)."""
    record = context.get("gpubench_health")
    if not isinstance(record, dict) or not record.get("end"):
        return []
    start, end = record.get("start") or {}, record["end"]
    lines = ["", "## Health state (NVML, at the run's start and end)", "", "| reading | start | end |", "|---|---|---|"]
    for field, value in end.items():
        if field in ("unix_seconds", "clock_event_reasons"):
            continue
        before = start.get(field, "-")
        lines.append(f"| {field} | {before if before != value else ''} | {value} |")
    lines.append(f"| Xids during the run | | {record.get('xid_during')} |")
    lines.append(f"| Xids in the kernel log | | {record.get('kernel_log_xids')} |")
    if "planted" in record:
        lines.append(f"| planted (GPUBENCH_PLANT_HEALTH) | | {record['planted']} |")
    return lines
