"""The micro-architecture card of one GPU of a run: what its experiments concluded, each value naming the benchmark
row(s) it came from, its spread and stated precision, "not measured" where the run had no such row, and the rows that
failed with the values they would have fed. The family modules (analysis/cards/families/) yield the values; this
module assembles and renders them. The verdict's layers (analysis/verdict/) check a card and give it its verdict:
`checks`, `expected`, `judged` and `verdict` are theirs, held here as data.
"""
from analysis.cards import families, noise, stated
from analysis.model import report as report_model
from analysis.model.values import default_better, rows_of, size_text

NOT_MEASURED = "not measured"
FAILED_SECTION = "Rows that failed"


def stated_precision(rows, model, context, unit=""):
    """The precision of a card value read from `rows` measured under the stopping rule, from each row's widest stated
    95% precision (stated.half_width: the one its JSON carries): with one or two rows the wider (a ratio or a difference of two readings
    is known no better than its worse side); with three or more their median, since such values are a plateau's
    median or a sweep's best and the rows that cite an edge (often at their cap) do not move them. None where a row
    states no precision (fixed effort, a result from an untimed sweep)."""
    widths = []
    for row in rows:
        if row.stop not in ("target", "cap"):
            return None
        quantities = list(row.results)
        # A value in clocks is read from its rows' results in clocks, one in time from those in time: the SM clock's
        # step moves one kind and not the other (noise.moves_with_the_sm_clock).
        in_clocks = report_model.per_clock(unit)
        quantities = [q for q in quantities if report_model.per_clock(q) == in_clocks] or quantities
        row_widths = [stated.half_width(row, q, context, model) for q in quantities]
        if not row_widths or None in row_widths:
            return None
        widths.append(max(row_widths))
    if not widths:
        return None
    return max(widths) if len(widths) < 3 else sorted(widths)[len(widths) // 2]

class Card:
    OWN_ROWS_SECTION = "Rows of families without card rules"

    def own_rows_lines(self):
        """The rows of a user's own families (registered outside gpubench's source: no card rules; docs/your-kernel.md): each
        declared result as measured, with its stated precision (its declared class's, or its run's sampling interval
        where it declares none, said so); nothing concluded from them."""
        own = [row for row in self.report.rows() if (row.get("gpubench") or {}).get("users_family")
               and row.get("run_type") != "aggregate"]
        if not own:
            return []
        model = noise.load()
        lines = ["", f"## {self.OWN_ROWS_SECTION}", "",
                 "Measured as declared; the card concludes nothing about them (no rules of gpubench's).", "",
                 "| row | result | value | stated precision (95%) | class |", "|---|---|---|---|---|"]
        for row in own:
            for quantity, better in row.results.items():
                value = row.value("real_time" if quantity == "time" else quantity)
                if value is None:
                    continue
                cls = noise.class_of(row, quantity, self.context)
                width = stated.half_width(row, quantity, self.context, model)
                said = "-" if width is None else f"+-{width:.2%}" + ("" if cls else " (its own run only: no class)")
                lines.append(f"| `{row.short_name}` | {quantity} ({better}) | {value:.6g} | {said} | {cls or '-'} |")
        return lines

    def __init__(self, report):
        self.report = report
        self.context = report.context
        self.checks = None  # every layer's checks of the values (analysis/verdict/layers.py)
        self.limits = None  # the reference limits they were checked against (None: none)
        self.expected = set()  # the keys the limits expect of the check preset (what its card shows)
        self.judged = None  # (status, line) once the verdict was given
        self.verdict = None  # the verdict as its JSON keeps it: name, exit, action, line, code, reasons
        self.values = []
        self.failed = []  # {"row", "error", "family", "keys"}: what a failed row would have fed
        self.wrong = []  # the words of rows whose results, verified in the run, were wrong
        self.cut_short = None  # "12 of 79 rows reported": a run that reported fewer rows than planned, or interrupted
        self.families_of = {}  # value key -> the families whose rows it reads (what to measure again)

    def build(self):
        fed = {}  # family -> the keys its module produced
        model = noise.load()
        for module in families.modules():
            produced = [dict(value) for value in module.card(self.report)]
            # Which way each value is abnormal, the method that measured it (a limit of another never judges
            # it: a module raises METHOD when its measurement changes) and the spread of its rows.
            method = f"{module.__name__.rsplit('.', 1)[-1]}@{getattr(module, 'METHOD', 1)}"
            for value in produced:
                value.setdefault("better", default_better(value["unit"], "bracket" in value))
                value["method"] = method
                if value["value"] is not None:
                    spreads = [r.spread(value["unit"]) for r in rows_of(self.report, value["source"])]
                    spreads = [x for x in spreads if x is not None]
                    if spreads:
                        value["spread"] = max(spreads)
                    stated = stated_precision(rows_of(self.report, value["source"]), model, self.context,
                                              value["unit"])
                    if stated is not None:
                        value["precision"] = stated
                self.families_of[value["key"]] = module.FAMILIES
            self.values += produced
            for family in module.FAMILIES:
                fed[family] = [v["key"] for v in produced]
        for row in self.report.failed():  # every failed row, whether or not a card value reads it
            self.failed.append({"row": row["name"], "error": row.error, "family": row.family,
                                "keys": fed.get(row.family, [])})
        self.wrong = [row.get("label") or f"{row.short_name}: wrong results" for row in self.report.rows()
                      if row.value("wrong_results") or row.value("wrong_words") or row.value("wrong_elements")]
        # SmMap's answers, MemTest's words, the burn's GEMM elements
        planned = self.context.get("gpubench_rows_planned")
        reported = len({row.full_name for row in self.report.all_rows if not row.aggregate})
        if planned and str(planned).isdigit() and reported < int(planned) and self.report.gpu is None:
            self.cut_short = f"{reported} of {planned} rows reported"
        interrupted = [f for f in self.failed if f["error"] == "interrupted"]
        deadline = self.context.get("gpubench_deadline_s") if self.context.get("gpubench_deadline_reached") else None
        if interrupted and not self.cut_short:  # rows skipped by Ctrl-C, SIGTERM or a deadline: reported, not run
            self.cut_short = f"{reported - len(interrupted)} of {reported} rows ran, {len(interrupted)} interrupted"
        if self.cut_short and deadline:
            self.cut_short += f" at the deadline of {deadline} s"
        return self

    # --- output -----------------------------------------------------------------------------------
    def device(self):
        c = self.context
        rows = self.report.all_rows
        flagged = sum(1 for r in rows if r.get("clock_flagged"))
        device = {
            "name": c.get("gpu_name", NOT_MEASURED),
            "compute_capability": c.get("gpu_compute_capability"),
            "sm_count": c.get("gpu_sm_count"),
            "sm_clock_mhz_measured": c.get("gpu_sm_clock_mhz_measured"),
            "sm_clock_mhz_max": c.get("gpu_sm_clock_mhz_max"),
            "l2_bytes": c.get("gpu_l2_bytes"),
            "dram_bandwidth_theoretical_gbs": c.get("gpu_dram_bandwidth_theoretical_gbs"),
            "driver": c.get("cuda_driver_version"),
            "runtime": c.get("cuda_runtime_version"),
            "preset": c.get("gpubench_preset", "unknown"),
            "cold_l2": c.get("gpubench_cold_l2"),
            "other_gpu_processes": c.get("gpubench_other_gpu_processes", "unknown"),
            "other_gpu_processes_end": c.get("gpubench_other_gpu_processes_end", "unknown"),
            "uuid": c.get("gpu_uuid"),
            "pci_bus_id": c.get("gpu_pci_bus_id"),
            "other_gpu_processes_during": c.get("gpubench_other_gpu_processes_during", "unknown"),
            "rows": sum(1 for r in rows if r.get("run_type") == "iteration"),
            "rows_clock_flagged": flagged,
            "date": c.get("date"),
        }
        # Runs with NVML: rows the power cap or temperature held back (only when there are any).
        for cap in ("power_capped", "thermal_capped"):
            capped = sum(1 for r in rows if r.get(cap))
            if capped:
                device[f"rows_{cap}"] = capped
        return device

    def to_json(self):
        card = {"device": self.device(), "values": self.values}
        if self.failed:  # only when there are any: a clean run's card keeps its shape
            card["failed_rows"] = self.failed
        if self.checks and (self.checks["layers"] or self.checks["checks"]):  # where a layer judged anything
            card["ranges"] = self.checks
        if self.verdict:
            card["verdict"] = self.verdict
        if isinstance(self.context.get("gpubench_health"), dict):  # only a run that read it: older cards keep their shape
            card["health"] = self.context["gpubench_health"]
        return card

    def to_markdown(self, plots_note="", limit_lines=()):
        """The card in Markdown; `limit_lines`: the verdict's section of limits (analysis/verdict/judge.py: limit_lines)."""
        d = self.device()
        lines = [f"# Micro-architecture card: {d['name']}", ""]
        lines.append(f"sm_{str(d['compute_capability']).replace('.', '')}, {d['sm_count']} SMs, SM clock measured "
                     f"{d['sm_clock_mhz_measured']} MHz (rated {d['sm_clock_mhz_max']}), L2 "
                     f"{size_text(float(d['l2_bytes'] or 0))}, driver {d['driver']}, runtime "
                     f"{d['runtime']}; preset {d['preset']}, {d['rows']} rows, {d['date']}.")
        warnings = []
        if d["other_gpu_processes"] not in ("none", "unknown"):
            warnings.append(f"other processes used the GPU when the run started: {d['other_gpu_processes']}")
        if d["other_gpu_processes_during"] not in ("none", "unknown"):
            warnings.append(f"other processes used the GPU during the run: {d['other_gpu_processes_during']}")
        if d["other_gpu_processes_end"] not in ("none", "unknown"):
            warnings.append(f"other processes used the GPU when the run ended: {d['other_gpu_processes_end']}")
        if d["rows_clock_flagged"]:
            warnings.append(f"{d['rows_clock_flagged']} row(s) ran with the SM clock under 97% of rated or drifting "
                            "over 1% (see their labels)")
        for cap, what in (("power_capped", "the power cap"), ("thermal_capped", "temperature")):
            if d.get(f"rows_{cap}"):
                warnings.append(f"{d[f'rows_{cap}']} row(s) ran with {what} holding the clocks back (NVML; see "
                                "their labels and clock_reasons)")
        if self.failed:
            warnings.append(f"{len(self.failed)} row(s) failed; the values of their families may come from fewer rows "
                            f"than asked, or read \"not measured\" (see \"{FAILED_SECTION}\")")
        for warning in warnings:
            lines += ["", f"**Warning:** {warning}."]
        sections = []
        for v in self.values:
            if v["section"] not in sections:
                sections.append(v["section"])
        incomplete = {key for f in self.failed for key in f["keys"]}
        # The check preset's card leaves out of its text the values that preset never sets out to measure (those its
        # limits do not expect of it; with no limits, those of families with no row in the run); the JSON keeps them.
        # The burn and memtest presets' cards likewise show only their families' values.
        ran = {row.family for row in self.report.all_rows}
        preset = self.context.get("gpubench_preset")
        expected = self.expected if preset == "check" else set()
        users = {row.family for row in self.report.all_rows if (row.get("gpubench") or {}).get("users_family")}
        if preset in ("burn", "memtest") or (ran and ran <= users):  # a long preset's, or only a user's families
            asked = {v["key"] for v in self.values if ran & set(self.families_of.get(v["key"], ()))}
        else:
            asked = {v["key"] for v in self.values if v["value"] is not None or v.get("text") or preset != "check"
                     or (v["key"] in expected if expected else ran & set(self.families_of.get(v["key"], ())))}
        for section in sections:
            # ns and rates are in their sibling's text; the JSON keeps them as values of their own.
            entries = [v for v in self.values if v["section"] == section and v["key"] in asked
                       and not v["key"].endswith((".ns", ".bytes_per_second"))]
            if not entries:
                continue
            lines += ["", f"## {section}", "", "| quantity | value | from |", "|---|---|---|"]
            for v in entries:
                mark = " (rows of its family failed)" if v["key"] in incomplete else ""
                if v["value"] is None and v.get("text"):  # why: e.g. the rows skipped, saying so
                    source = f"`{v['source']}`" if v["source"] else "-"
                    lines.append(f"| {v['label']} | {NOT_MEASURED} ({v['text']}){mark} | {source} |")
                elif v["value"] is None:
                    lines.append(f"| {v['label']} | {NOT_MEASURED}{mark} | - |")
                else:
                    text = v["text"] or f"{v['value']:.4g} {v['unit']}"
                    if v.get("spread") is not None:  # its rows' [min, q3] width over their launches
                        text += f" (spread {v['spread']:.1%})"
                    if v.get("precision") is not None:  # the widest stated precision of its rows
                        text += f" (+-{v['precision']:.1%} at 95%)"
                    lines.append(f"| {v['label']} | {text}{mark} | `{v['source']}` |")
        lines += self.own_rows_lines()
        if self.failed:
            lines += ["", f"## {FAILED_SECTION}", "", "| row | error | values it would have fed |", "|---|---|---|"]
            for f in self.failed:
                keys = ", ".join(k for k in f["keys"] if not k.endswith((".ns", ".bytes_per_second"))) or "-"
                lines.append(f"| `{f['row']}` | {f['error']} | {keys} |")
        lines += list(limit_lines)
        if self.verdict:
            lines += ["", f"**Verdict: {self.verdict['name'].replace('_', ' ')}** ({self.verdict['line']})"]
        if plots_note:
            lines += ["", plots_note]
        return "\n".join(lines) + "\n"
