#!/usr/bin/env python3
"""The micro-architecture card of one gpubench run: what the chip's experiments concluded, each value
naming the benchmark row(s) it came from, "not measured" where the run had no such row, and the rows
that failed with the values they would have fed.

    card.py run.json [more.json ...] [--out PREFIX] [--plots]   writes PREFIX.md and PREFIX.json
    card.py --compare a.card.json b.card.json [--tolerance 0.02]  values the two cards share, side by side
    card.py run.json --check                                      is each GPU (and the node) normal?

gpubench runs this at the end of a run written with --benchmark_out (PREFIX defaults to FILE.card).
The rules are the family modules of analysis/cards/families/, one per family; this script assembles and
renders what they yield. With --check each GPU's values are judged in layers (architecture, SKU, node, its own
SMs: analysis/verdict/judge.py) and the card carries the verdict. Exit status: 0 (with --check: normal); 1 two cards
disagree (--compare); 2 bad input; with --check the verdict's (analysis/verdict/verdicts.json): {EXITS}.
docs/verdicts.md says how the limits are made and calibrated.
"""
import argparse
import json
import os
import sys

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.comparing import card_diff  # noqa: E402
from analysis.model import cli  # noqa: E402
from analysis.cards import families  # noqa: E402
from analysis.verdict import links  # noqa: E402
from analysis.running import measure_again  # noqa: E402
from analysis.cards import noise  # noqa: E402
from analysis.verdict import limits as ranges  # noqa: E402
from analysis.verdict import judge as verdict  # noqa: E402
from analysis.model import report as report_model  # noqa: E402
from analysis.model.values import default_better, rows_of, size_text  # noqa: E402

NOT_MEASURED = "not measured"
FAILED_SECTION = "Rows that failed"



def stated_precision(rows, model, context, unit=""):
    """The precision of a card value read from `rows` measured under the stopping rule, from each row's widest stated
    95% precision (noise.stated_half_width): with one or two rows the wider (a ratio or a difference of two readings
    is known no better than its worse side); with three or more their median, since such values are a plateau's
    median or a sweep's best and the rows that cite an edge (often at their cap) do not move them. None where a row
    states no precision (fixed effort, a result from an untimed sweep)."""
    widths = []
    for row in rows:
        if row.stop not in ("target", "cap"):
            return None
        quantities = list(row.results)
        if report_model.per_clock(unit):  # a value in clocks is read from its rows' results in clocks
            quantities = [q for q in quantities if report_model.per_clock(q)] or quantities
        row_widths = [noise.stated_half_width(model, noise.class_of(row, q, context), row.half_width(q),
                                              context.get("gpu_name"))
                      for q in quantities]
        if not row_widths or None in row_widths:
            return None
        widths.append(max(row_widths))
    if not widths:
        return None
    return max(widths) if len(widths) < 3 else sorted(widths)[len(widths) // 2]

class Card:
    def __init__(self, report):
        self.report = report
        self.context = report.context
        self.ranges = None  # every layer's checks of the values (analysis/verdict/judge.py)
        self.limits = None  # the reference limits (None: none; the tools load them, from --ranges or GPUBENCH_RANGES)
        self.judged = None  # (status, line) once the verdict was given
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
                      if row.value("wrong_results")]
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
        self.ranges = verdict.check(self.values, self.context, self.limits, self.context.get("gpubench_preset"))
        return self

    def verdict(self, subset=False):
        """(status, one line) of this card's GPU (verdict.judge), kept for its JSON."""
        self.judged = verdict.judge(self.ranges, self.failed, subset, self.context.get("gpubench_filter"), self.wrong,
                                    self.cut_short, verdict.busy_text(self.context))
        return self.judged

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
        if self.ranges and (self.ranges["layers"] or self.ranges["checks"]):  # where a layer judged anything
            card["ranges"] = self.ranges
        if self.judged:
            status, line = self.judged
            card["verdict"] = {"name": verdict.NAME_OF[status], "exit": status, "action": verdict.action(status),
                               "line": line}
        return card

    def to_markdown(self, plots_note=""):
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
        ran = {row.family for row in self.report.all_rows}
        expected = {key for _, entry in verdict.layer_entries(self.context, self.limits)
                    for key in (entry.get("expected") or {}).get("check", [])}
        asked = {v["key"] for v in self.values if v["value"] is not None or v.get("text")
                 or self.context.get("gpubench_preset") != "check"
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
        if self.failed:
            lines += ["", f"## {FAILED_SECTION}", "", "| row | error | values it would have fed |", "|---|---|---|"]
            for f in self.failed:
                keys = ", ".join(k for k in f["keys"] if not k.endswith((".ns", ".bytes_per_second"))) or "-"
                lines.append(f"| `{f['row']}` | {f['error']} | {keys} |")
        if self.ranges and (self.ranges["layers"] or self.ranges["checks"]):
            lines += verdict.markdown(self.ranges)
        if self.judged:
            lines += ["", f"**Verdict: {verdict.NAME_OF[self.judged[0]].replace('_', ' ')}** ({self.judged[1]})"]
        if plots_note:
            lines += ["", plots_note]
        return "\n".join(lines) + "\n"


def write_plots(report, prefix):
    """Figures next to the card; the note says what was written, or why none were and how to get them."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("Plots: not drawn, matplotlib is not installed for this python3 "
                f"({sys.executable}; Debian: `apt-get install python3-matplotlib`, or give gpubench "
                "--gpubench_python=PATH), then run "
                f"`{sys.executable} {os.path.abspath(__file__)} RUN.json --out {prefix} --plots`.")
    from analysis.cards import plots
    device = report.context.get("gpu_name", "GPU")
    wrote = []
    for make, suffix in plots.FIGURES:
        if make(plt, report, device, prefix + suffix):
            wrote.append(os.path.basename(prefix + suffix))
        plt.close("all")
    return "Plots: " + ", ".join(wrote) + "." if wrote else "Plots: none, the run has no rows to plot."


def main():
    argv = sys.argv[1:]
    rerun_args = []
    if "--" in argv:  # --rerun GPUBENCH -- the run's own flags
        argv, rerun_args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    parser = argparse.ArgumentParser(description=__doc__.replace("{EXITS}", verdict.exit_help()),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="gpubench --benchmark_out JSON (or two cards with --compare)")
    parser.add_argument("--out", help="prefix of the card files (default: the first JSON + .card; with --check: "
                                      "none written unless given)")
    parser.add_argument("--plots", action="store_true", help="draw figures next to the card (needs matplotlib)")
    parser.add_argument("--history", help="with --check: add the run to this history store (a SQLite path or a "
                                          "PostgreSQL URL; default $GPUBENCH_HISTORY) and say its drifts")
    parser.add_argument("--compare", action="store_true", help="compare two .card.json files")
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--allow-different-devices", action="store_true",
                        help="with --compare: compare cards of different GPUs anyway")
    parser.add_argument("--check", action="store_true",
                        help="is each GPU normal: exit " + verdict.exit_help())
    parser.add_argument("--subset", action="store_true",
                        help="with --check: judge only the values the run measured (a filtered run, on purpose)")
    parser.add_argument("--ranges", default=ranges.default_path(),
                        help="the reference limits (default: $GPUBENCH_RANGES, else the shipped ones)")
    parser.add_argument("--rerun", metavar="GPUBENCH",
                        help="with --check: measure the families of outside values again with this gpubench (the "
                             "run's flags after --) before calling them a fault")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.json) != 2:
            parser.error("--compare takes two .card.json files")
        return card_diff.compare_cards(args.json, args.tolerance, args.allow_different_devices)
    if (args.subset or args.rerun) and not args.check:
        parser.error("--subset and --rerun go with --check")
    try:
        limits = ranges.load(args.ranges)
    except (OSError, ValueError) as e:
        raise cli.UsageError(f"reference ranges: {e}") from None
    runs = [cli.load(path) for path in args.json]
    devices = {run.context.get("gpu_name") for run in runs} - {None}
    if len(devices) > 1:
        raise cli.UsageError("the inputs come from different GPUs (" + ", ".join(sorted(devices)) +
                             "); a card is one chip's")
    merged = report_model.merge(runs)
    if not all(part.has_gpu() for _, part in merged.devices()):
        raise cli.UsageError(f"{args.json[0]}: the run measured no GPU (its context has no gpu_name: a run without a "
                             "GPU, or host rows only); a card describes a GPU")
    write = args.out is not None or not args.check  # the check writes nothing beside its input unless asked
    prefix = args.out or args.json[0] + ".card"
    if write:
        cli.writable(prefix + ".md", "card")
    status = 0
    if args.check:
        status, merged, built, judged_links = acceptance(merged, limits, args.subset, args.rerun, rerun_args)
        if getattr(merged, "measured_again", None) and len(args.json) == 1:
            keep_measured_again(args.json[0], merged.measured_again)
        target = args.history or os.environ.get("GPUBENCH_HISTORY")
        if target:
            from analysis import history  # here: history reads cards
            history.keep(target, args.json[0], merged, [(c, c.judged[0]) for _, c in built if c.judged],
                         lambda line: say("card.py: " + line))
    else:
        built, judged_links = [(gpu, build(part, limits)) for gpu, part in merged.devices()], None
    if write:
        if len(built) == 1:
            _, note = write_card(merged.devices()[0][1], prefix, args.plots, built[0][1])
        else:
            note, _ = write_host_card(merged, prefix, args.plots, dict(built), limits, judged_links)
        if note:
            print(f"card.py: {note}", file=sys.stderr)
        print(f"wrote {prefix}.md and {prefix}.json", file=sys.stderr)
    return status


def build(report, limits):
    card = Card(report)
    card.limits = limits
    return card.build()


def judge_all(report, limits, subset):
    """[(gpu, card, status, line)] of every GPU of `report`, each judged in every layer and against its node."""
    return verdict.judge_cards([(gpu, build(part, limits)) for gpu, part in report.devices()], limits, subset)


def say(line):
    print(line, file=sys.stderr)


def acceptance(report, limits, subset=False, rerun=None, rerun_args=()):
    """--check: one line per GPU, one for the node where there are several, and a last line with the verdict's
    name, exit and action; the worst status. With `rerun`, the families behind outside values are measured once
    more on the GPUs where they were outside, and the verdict is the second reading's: a value outside twice is
    a fault. Returns (status, the report judged last, [(gpu, card)], its links judged or None)."""
    judged = judge_all(report, limits, subset)
    cut_short = any(card.cut_short for _, card, _, _ in judged)  # incomplete whatever a second reading says
    if rerun and not cut_short and any(status == verdict.ABNORMAL or verdict.near(card.ranges) for _, card, status, _ in judged):
        first = {(gpu, c["key"]): c["value"] for gpu, card, _, _ in judged
                 for c in verdict.outside(card.ranges) + verdict.near(card.ranges)}
        report = measure_again.measure_again(report, judged, rerun, rerun_args, say)
        judged = judge_all(report, limits, subset)
        for gpu, card, _, _ in judged:
            for c in card.ranges["checks"]:
                if (gpu, c["key"]) in first and c["layer"] != "node":
                    again = "still outside" if c["inside"] is False else "inside"
                    say(f"card.py: measuring again: {c['label']}: first {first[(gpu, c['key'])]:.4g}, again "
                        f"{c['value']:.4g} {c['unit']} ({again}, {c['layer']})")
    for gpu, card, status, line in judged:
        where = f"GPU {gpu}: " if gpu is not None else ""
        say(f"card.py --check: {where}{card.context.get('gpu_name')}: {line}")
    judged_links = None
    if len(judged) > 1:
        judged_links = judge_links(report, limits)
        link_findings = judged_links[1]
        for line in map(links.render, link_findings):
            say(f"card.py --check: {line}")
        status, line = verdict.node_line(judged, link_findings)
        say(f"card.py --check: node: {line}")
    else:
        status, line = judged[0][2], judged[0][3]
    say(f"card.py --check: verdict {verdict.NAME_OF[status]}, exit {status}, {verdict.action(status)}: {line}")
    return status, report, [(gpu, card) for gpu, card, _, _ in judged], judged_links


def keep_measured_again(path, again):
    """Adds the verdict's second measurement to the run's JSON (written whole, then renamed), so that card.py --check
    of the saved run gives the verdict given live; its first readings stay as they were."""
    data = report_model.read_json(path)
    data[report_model.MEASURED_AGAIN] = again
    if path.endswith(".gz"):
        return  # a committed, compressed run is left as it is
    partial = path + ".partial"
    with open(partial, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(partial, path)
    say(f"card.py: the second measurement is kept in {path} ({report_model.MEASURED_AGAIN})")


def write_card(report, prefix, plots, card):
    note = write_plots(report, prefix) if plots else ""
    with open(prefix + ".json", "w") as f:
        json.dump(card.to_json(), f, indent=1)
    markdown = card.to_markdown(note)
    with open(prefix + ".md", "w") as f:
        f.write(markdown)
    return (card, markdown), note


# The node card's side-by-side values: (label, card key, scale, unit).
NODE_VALUES = (("DRAM read", "bandwidth.stream_read.bytes_per_second", 1e-12, "TB/s"),
               ("DRAM read, of theoretical", "bandwidth.stream_read.fraction", 100, "%"),
               ("L2 read", "bandwidth.l2.bytes_per_second", 1e-12, "TB/s"),
               ("L1 latency", "memory.l1.cycles", 1, "cycles"),
               ("L2 latency", "memory.l2.cycles", 1, "cycles"),
               ("DRAM latency", "memory.dram.cycles", 1, "cycles"),
               ("FP32 FMA, of peak", "compute.ffma.fraction_of_peak", 100, "%"),
               ("wgmma FP16, of peak", "compute.tensor.wgmma.f16_f32_ss", 100, "%"),
               ("FP32 FMA, worst SM", "sm_map.fma.worst_vs_median", 1, "of the median"),
               ("L2 latency, worst SM", "sm_map.l2_latency.worst_vs_median", 1, "of the median"))


def judge_links(report, limits):
    """(the node's links, the findings of its slow links and GPUs named by their links): analysis/verdict/links.py, read
    once; links.render says each."""
    values = links.link_values(report)
    checks, named = links.judge(values, links.limits_of(report, limits))
    return values, links.findings(checks, named)


def node_markdown(report, built, link_values, link_findings, node):
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
    for label, key, scale, unit in NODE_VALUES:
        cells = []
        for _, c in built:
            v = next((v for v in c.values if v["key"] == key), None)
            if not v or v["value"] is None:
                cells.append("-")
                continue
            out = [x for x in (c.ranges or {}).get("checks", []) if x["key"] == key and x["inside"] is False]
            text = f"{v['value'] * scale:.4g}"
            cells.append(f"**{text} !** ({', '.join(sorted({x['layer'] for x in out}))})" if out else text)
        lines.append(f"| {label} ({unit}) | " + " | ".join(cells) + " |")
    if all(c.judged for _, c in built):
        lines.append("| verdict | " + " | ".join(f"**{verdict.NAME_OF[c.judged[0]]}**" for _, c in built) + " |")
    lines += [""] + links.matrix_markdown(link_values)
    if link_values and node:
        lines += ["## Verdicts", ""] + [f"- GPU {g}: {c.judged[1]}" for g, c in built] + \
                 [f"- {links.render(f)}" for f in link_findings] + [f"- **node: {node[1]}**"]
    return "\n".join(lines) + "\n"


def write_host_card(report, prefix, plots, cards_by_gpu, limits=None, judged_links=None):
    """A run over several GPUs: each GPU's card as PREFIX-gpuN.md/.json (and figures), PREFIX.md the node card (the
    GPUs side by side, the NVLink matrix, the verdicts) and PREFIX.json holding every GPU's card and the links, the
    values' keys as gpu:N/key so that --compare pairs the same GPU's values. `judged_links`: judge_links of this
    report where the check has them already."""
    cards, values, notes, built = [], [], [], []
    for gpu, part in report.devices():
        (card, _), note = write_card(part, f"{prefix}-gpu{gpu}", plots, cards_by_gpu[gpu])
        built.append((gpu, card))
        notes.append(note)
        cards.append({"gpu": gpu, "card": os.path.basename(f"{prefix}-gpu{gpu}.json")} | card.to_json())
        values += [v | {"key": f"gpu:{gpu}/{v['key']}", "gpu": gpu} for v in card.values]
    link_values, link_findings = judged_links or judge_links(report, limits)
    node = verdict.node_line([(gpu, card, *card.judged) for gpu, card in built], link_findings) \
        if all(card.judged for _, card in built) else None
    slow = {tuple(c["link"]) for f in link_findings for c in f.get("checks", ())} | \
        {tuple(pair) for f in link_findings for pair in f.get("links", ())}
    markdown = node_markdown(report, built, link_values, link_findings, node).replace("`card-gpu",
                                                                               f"`{os.path.basename(prefix)}-gpu")
    document = {"devices": cards, "values": values,
                "links": [{"from": a, "to": b} | {k: v for k, v in value.items() if k != "boards"} |
                          {"boards": list(value["boards"]), "inside": (a, b) not in slow}
                          for (a, b), value in link_values.items()]}
    if node:
        status, line = node
        document["verdict"] = {"name": verdict.NAME_OF[status], "exit": status, "action": verdict.action(status),
                               "line": line, "links": [links.render(f) for f in link_findings]}
    with open(prefix + ".md", "w") as f:
        f.write(markdown)
    with open(prefix + ".json", "w") as f:
        json.dump(document, f, indent=1)
    return "; ".join(n for n in notes if n), built


if __name__ == "__main__":
    sys.exit(cli.main(main))
