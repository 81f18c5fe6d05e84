#!/usr/bin/env python3
"""Calibration of the verdicts on committed runs of identical code (no GPU needed): the check's false alarms with
the limits made without the run, its board or its whole SKU, and its power on planted faults, on one GPU and on a
node composed of boards' runs; compare.py's false alarms with the noise model made without the pair or without
the SKU, its power on planted changes and the least change it calls slower, per class of measurement; the one-shot
count of false alarms over every run. Prints Markdown (docs/results/2026-11-26-verdicts/raw.tar.xz/calibration.md).

    calibrate_verdicts.py --quick RUN... --check RUN... [--same-code A=B ...]

--quick: runs of README command 1's preset; --check: runs of the check preset (a node run's GPUs count as runs
of their boards). Runs of one board are told apart by gpu_uuid, SKUs by gpu_name.
"""
import argparse
import copy
import itertools
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, ROOT)
from analysis import compare  # noqa: E402
from analysis.comparing import comparison  # noqa: E402
from analysis.cards import card  # noqa: E402
from analysis.tables import make_noise  # noqa: E402
from analysis.tables import make_ranges  # noqa: E402
from analysis.cards import noise  # noqa: E402
from analysis.model import archive  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict import judge as verdict_judge  # noqa: E402
from analysis.verdict import table as verdicts  # noqa: E402
from analysis.model import report as report_model  # noqa: E402

LATENCY = ("cycles_per_load", "ns_per_load", "median_over_sms", "min_over_sms", "max_over_sms")
RATE = ("bytes_per_second", "fraction_of_peak", "bytes_per_clock_per_sm", "tensor_tops", "tensor_ops_per_clock_per_sm",
        "cycles_per_wgmma", "ns_per_wgmma")
# (card key, what, factor on the rows behind it, quantities scaled): the faults the issue names.
PLANTS = (("bandwidth.stream_read.fraction", "DRAM read -10%", 0.90, RATE),
          ("memory.l2.cycles", "L2 latency +10%", 1.10, LATENCY),
          ("compute.tensor.wgmma.f16_f32_ss", "wgmma FP16 -10%", 0.90, RATE))
SHORT = {"NVIDIA H100 80GB HBM3": "H100", "NVIDIA H200": "H200"}


class Run:
    """One GPU of one run: its path, GPU index, board, SKU, preset and report."""

    def __init__(self, path, gpu, part):
        self.path, self.gpu, self.part = path, gpu, part
        self.board = part.context.get("gpu_uuid") or path
        self.sku = part.context.get("gpu_name")
        self.preset = part.context.get("gpubench_preset", "quick")
        self.label = os.path.basename(path).split(".")[0] + (f"#{gpu}" if gpu is not None else "")
        self.code = part.context.get("gpubench_source_version") or "older"


def runs_of(paths):
    found = []
    for path in paths:
        for gpu, part in report_model.load(path).devices():
            found.append(Run(path, gpu, part))
    return found


def rows_scaled(part, key, factor, quantities, gpu=None):
    """A copy of a GPU's report with every row of the experiments behind card value `key` made worse by `factor`."""
    rows = [report_model.Row(dict(r)) for r in part.all_rows]
    for new, old in zip(rows, part.all_rows):
        new.__dict__.update(old.__dict__)
    planted = report_model.Report(dict(part.context), rows, part.counter_table, part.gpu, part.sources)
    value = next(v for v in card.Card(planted).build().values if v["key"] == key)
    registered = {r.registered for r in card.rows_of(planted, value["source"])}
    for row in planted.all_rows:
        if row.registered in registered and row.ok:
            for q in quantities:
                if q in row and isinstance(row[q], (int, float)):
                    row[q] = row[q] * factor
    return planted


def judge(part, limits, node=None):
    """(status, line, card) of one GPU; `node`: the other GPUs' reports judged with it as one node."""
    cards = [(0, make_card(part, limits))] + [(i + 1, make_card(p, limits)) for i, p in enumerate(node or [])]
    judged = verdict_judge.judge_cards(cards, limits)
    return judged[0][2], judged[0][3], judged


def make_card(part, limits):
    return verdict_judge.build(part, limits)


class Tables:
    """Limits made from a set of runs: the architecture's from every SKU given, each SKU's from its own runs."""

    def __init__(self, runs):
        self.runs = runs

    def make(self, without=(), drop_sku=None, arch_skus=None):
        """The shipped table with sm_90 and the H100's and H200's entries remade from the runs less `without`;
        `drop_sku`: that SKU has no entry and no run in the architecture's (leave one SKU out)."""
        table = limit_table.load(limit_table.RANGES)
        kept = [r for r in self.runs if r not in without and r.sku != drop_sku]
        skus = sorted({r.sku for r in kept})
        whole = sorted({r.path for r in kept if not self._mixed(r.path, kept)})
        table["architectures"]["sm_90"] = make_ranges.make_arch_entry(
            whole, "sm_90", "sm_90 (Hopper)", "calibration", min_runs=3, min_machines=2,
            min_skus=1 if drop_sku else min(2, len(skus)))
        for key, entry in list(table["skus"].items()):
            name = entry["names"][0]
            if name not in SHORT:
                continue
            if name == drop_sku:
                del table["skus"][key]
                continue
            mine = sorted({r.path for r in kept if r.sku == name and not self._mixed(r.path, kept)})
            table["skus"][key] = make_ranges.make_entry(mine, entry["name"], entry["names"], "calibration",
                                                        min_runs=3, min_machines=2)
        return table

    @staticmethod
    def _mixed(path, kept):
        """A node run of which a GPU was left out: the whole file goes (make_ranges reads files whole)."""
        gpus = [r for r in kept if r.path == path]
        return any(r.gpu is not None for r in gpus) and len(gpus) < len(report_model.load(path).devices())


def check_section(quick, check):
    out = ["## The check: false alarms on healthy runs", ""]
    runs = quick + check
    tables = Tables(runs)
    out += ["Each GPU judged by the sm_90 table and its SKU's table made without it: without the run, without every "
            "run of its board, and without every run of its SKU (the architecture's table then comes from the other "
            "SKU alone, and its SKU has no table).", "",
            "| run | board | SKU | preset | code | without the run | without its board | without its SKU |",
            "|---|---|---|---|---|---|---|---|"]
    alarms = {"run": 0, "board": 0, "sku": 0}
    current = {"run": 0, "board": 0, "sku": 0}
    for run in runs:
        cells = []
        for kind, table in (("run", tables.make(without=[run])),
                            ("board", tables.make(without=[r for r in runs if r.board == run.board])),
                            ("sku", tables.make(drop_sku=run.sku))):
            status, line, _ = judge(run.part, table)
            alarms[kind] += status != verdicts.NORMAL
            current[kind] += status != verdicts.NORMAL and run.code != "older"
            cells.append(f"{verdicts.NAME_OF[status]}: " + line.split(": ", 1)[-1][:90])
        out.append(f"| {run.label} | {run.board[4:12]} | {SHORT.get(run.sku, run.sku)} | {run.preset} | {run.code[:7]} | "
                   + " | ".join(cells) + " |")
    now = sum(r.code != "older" for r in runs)
    out += ["", f"**Not normal: {alarms['run']} of {len(runs)} without the run, {alarms['board']} of {len(runs)} without "
            f"the board, {alarms['sku']} of {len(runs)} without the SKU; of the {now} runs of this session's code, "
            f"{current['run']}, {current['board']} and {current['sku']}.**", ""]

    out += ["## The check's power: planted faults, the SKU left out", "",
            "Each healthy run of the check preset made worse, judged with its SKU removed from every table (the "
            "architecture's from the other SKU's runs).", "",
            "| fault | SKU | caught (abnormal, naming it) | verdict on the first |", "|---|---|---|---|"]
    for key, what, factor, quantities in PLANTS:
        for sku in sorted({r.sku for r in check}):
            table = tables.make(drop_sku=sku)
            hits, mine, first = 0, [r for r in check if r.sku == sku], ""
            for run in mine:
                status, line, judged = judge(rows_scaled(run.part, key, factor, quantities), table)
                named = any(c["key"] == key for c in verdict_judge.outside(judged[0][1].checks))
                hits += status == verdicts.ABNORMAL and named
                first = first or line
            out.append(f"| {what} | {SHORT[sku]} | {hits} of {len(mine)} | {first[:160]} |")
    out.append("")
    return out, alarms


def node_section(check):
    out = ["## A node composed of four boards' check runs, one GPU's DRAM read 10% slow", "",
           "The node layer judges each GPU against the median of the others (4 robust sigmas of the value's "
           "board-to-board spread, at least 4%).", "",
           "| SKU | GPUs (boards) | limits | healthy node | GPU 2 DRAM read -10% |", "|---|---|---|---|---|"]
    tables = Tables(check)
    for sku in sorted({r.sku for r in check}):
        boards, picked = set(), []
        for run in check:
            if run.sku == sku and run.board not in boards:
                boards.add(run.board)
                picked.append(run)
        picked = picked[:4]
        if len(picked) < 3:
            continue
        for what, table in (("none (no architecture, no SKU)", {"version": 3, "architectures": {}, "skus": {}}),
                            ("its SKU left out", tables.make(drop_sku=sku)),
                            ("every layer, as shipped", limit_table.load(limit_table.RANGES))):
            parts = [r.part for r in picked]
            healthy = verdict_judge.judge_cards([(i, make_card(p, table)) for i, p in enumerate(parts)], table)
            slow = list(parts)
            slow[2] = rows_scaled(parts[2], "bandwidth.stream_read.fraction", 0.90, RATE)
            judged = verdict_judge.judge_cards([(i, make_card(p, table)) for i, p in enumerate(slow)], table)
            node_status, _ = verdict_judge.node_line(judged)
            named = [f"GPU {g} {verdicts.NAME_OF[s]}" for g, _, s, _ in judged if s != verdicts.NORMAL]
            layers = sorted({c["layer"] for c in verdict_judge.outside(judged[2][1].checks)})
            out.append(f"| {SHORT[sku]} | {', '.join(r.board[4:12] for r in picked)} | {what} | "
                       f"{', '.join(sorted({verdicts.NAME_OF[s] for *_, s, _ in healthy}))} | "
                       f"{verdicts.NAME_OF[node_status]}: {'; '.join(named)} (GPU 2 outside by: {', '.join(layers)}) |")
    out.append("")
    return out


def pairs_of(runs, same_code):
    """[(a, b, scope)] of runs of one SKU, preset and code (runs of no recorded code: of one folder)."""
    code = lambda r: same_code.get(r.code, r.code) if r.code != "older" else os.path.dirname(r.path)  # noqa: E731
    found = []
    for a, b in itertools.combinations(runs, 2):
        if a.sku == b.sku and a.preset == b.preset and code(a) == code(b):
            found.append((a, b, noise.scope(a.board, b.board)))
    return found


def model_without(runs, left_out, same_code, drop_sku=None):
    paths = sorted({r.path for r in runs if r not in left_out and r.sku != drop_sku
                    and not any(o.path == r.path for o in left_out)})
    return make_noise.make_model(paths, "calibration", same_code=same_code, min_skus=1)


def entries(a, b, model, threshold=5.0):
    return compare.compare_rows(own_sides(a), own_sides(b), model, noise.scope(a.board, b.board), False,
                                a.part.fixed_counters(), a.part.context)


def counts(found, threshold):
    c = {"slower": 0, "faster": 0, "ambiguous": 0, "changed": 0, "same": 0, "clock": 0, "slower past": 0}
    for e in found:
        if e["role"] == "diagnostic":
            continue
        v = e["verdict"]
        key = "clock" if "(clock)" in v else v
        c[key] = c.get(key, 0) + 1
        if v == "slower" and abs(e["change"]) * 100 > threshold:
            c["slower past"] += 1
    return c


def compare_section(runs, same_code):
    out = ["## compare.py on runs of identical code", "",
           "Each pair judged with the noise model made without both runs (leave the pair out), then with the noise "
           "model made without the pair's SKU (leave the SKU out). Same board: run to run; two boards: board to board.",
           "",
           "| pair | SKU | preset | scope | model | slower | slower past 5% | faster | changed | ambiguous | only by the "
           "clock | same |", "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    same, cross = [], []
    for a, b, where in pairs_of(runs, same_code):
        (same if where == noise.SAME_BOARD else cross).append((a, b))
    # Every same-board pair, and for two boards one pair per pair of boards.
    seen, chosen = set(), []
    for a, b in cross:
        key = (a.sku, a.preset, frozenset((a.board, b.board)))
        if key not in seen:
            seen.add(key)
            chosen.append((a, b))
    totals = {}
    for a, b in same + chosen:
        for what, model in (("without the pair", model_without(runs, [a, b], same_code)),
                            ("without the SKU", model_without(runs, [], same_code, drop_sku=a.sku))):
            c = counts(entries(a, b, model), 5.0)
            where = noise.scope(a.board, b.board)
            total = totals.setdefault((where, what), {"pairs": 0, "slower": 0, "slower past": 0, "faster": 0,
                                                      "changed": 0})
            total["pairs"] += 1
            for k in ("slower", "slower past", "faster", "changed"):
                total[k] += c[k]
            out.append(f"| {a.label} / {b.label} | {SHORT[a.sku]} | {a.preset} | {where.replace('_', ' ')} | {what} | "
                       f"{c['slower']} | {c['slower past']} | {c['faster']} | {c['changed']} | {c['ambiguous']} | "
                       f"{c['clock']} | {c['same']} |")
    out += ["", "| scope | model | pairs | slower | slower past 5% | faster | changed |", "|---|---|---:|---:|---:|---:|---:|"]
    for (where, what), t in sorted(totals.items()):
        out.append(f"| {where.replace('_', ' ')} | {what} | {t['pairs']} | {t['slower']} | {t['slower past']} | "
                   f"{t['faster']} | {t['changed']} |")
    out.append("")
    return out, same


def own_sides(run):
    """{row key: Side} of one GPU of a run."""
    return compare.sides_of(comparison.own_rows(run.part))[0]


def worse(side, factor_of):
    """A copy of a row's samples with each result made worse by factor_of(quantity) (1.05: 5% worse)."""
    made = copy.copy(side)
    made.samples = dict(side.samples)
    for q, better in side.results.items():
        if q in side.samples:
            f = factor_of(q)
            made.samples[q] = [x * f if better == "lower" else x / f for x in side.samples[q]]
    return made


def power_section(runs, same, same_code):
    out = ["## compare.py's power", ""]
    model = make_noise.make_model(sorted({r.path for r in runs}), "calibration", same_code=same_code, min_skus=1)
    # Planted: 2% on a stable latency row, 5% on the DRAM read, against a back-to-back twin.
    for a, b in same:
        before, after = own_sides(a), own_sides(b)
        where = noise.scope(a.board, b.board)
        # A stable latency row (the quick preset's L2 chase over SMs, else the check's L2 chase), and the DRAM read.
        for prefixes, pct in ((("PointerChase/l2_sms/bytes:2097152", "PointerChase/direct_l2/bytes:16777216"), 2.0),
                              (("Stream/read/",), 5.0)):
            name = next((n for prefix in prefixes for n in after if n.startswith(prefix) and n in before
                         and (prefix.startswith("PointerChase") or "MiB:2048" in n)), None)
            if name is None:
                continue
            planted = dict(after)
            planted[name] = worse(after[name], lambda q: 1 + pct / 100)
            found = [e for e in compare.compare_rows({name: before[name]}, {name: planted[name]}, model, where, False,
                                                     (), a.part.context) if e["role"] == "result"]
            verdicts = sorted({e["verdict"] for e in found})
            spread = max(before[name].spread(found[0]["quantity"]), after[name].spread(found[0]["quantity"])) \
                if found else 0
            out.append(f"- {a.label} / {b.label}: `{name}` {pct:.0f}% worse (its own spread {spread:.2%}): "
                       f"{', '.join(verdicts)}")
    # The least change called slower, per class and scope.
    out += ["", "The least change compare calls slower, per class: each result of each pair made worse in steps "
            "(0.5% to 50%) in the second run, with the model made from every run; the median over the class's "
            "results, and the 95th percentile (its noisiest rows, whose own spread sets their tolerance):", "",
            "| class | run to run (same board): median, 95% | board to board: median, 95% |", "|---|---:|---:|"]
    grid = (0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.10, 0.15, 0.20, 0.30, 0.50)
    found = {}
    for a, b, where in pairs_of(runs, same_code):
        before, after = own_sides(a), own_sides(b)
        for name, side in after.items():
            if name not in before:
                continue
            for q in side.results:
                cls = noise.class_of(side.rows[0], q, b.part.context)
                if cls is None or cls in noise.NOT_JUDGED or noise.floor(model, cls, where) is None:
                    continue
                if q not in side.samples or q not in before[name].samples:
                    continue
                for step in grid:
                    made = worse(side, lambda quantity: 1 + step if quantity == q else 1.0)
                    verdicts = [e["verdict"] for e in compare.compare_rows({name: before[name]}, {name: made}, model,
                                                                            where, False, (), a.part.context)
                                if e["quantity"] == q]
                    if verdicts and verdicts[0].startswith("slower"):
                        found.setdefault((cls, where), []).append(step)
                        break
                else:
                    found.setdefault((cls, where), []).append(1.0)
    for cls in sorted(noise.CLASSES):
        cells = []
        for where in (noise.SAME_BOARD, noise.CROSS_BOARD):
            steps = sorted(found.get((cls, where), []))
            if not steps:
                cells.append("-")
                continue
            mid, at = steps[len(steps) // 2], steps[min(len(steps) - 1, int(0.95 * len(steps)))]
            text = lambda x: f"{x:.1%}" if x < 1 else "over 50%"  # noqa: E731
            cells.append(f"{text(mid)}, {text(at)} ({len(steps)} results)")
        out.append(f"| {cls} | {cells[0]} | {cells[1]} |")
    out.append("")
    return out


def one_shot(paths):
    out = ["## One-shot: every run of current code, as shipped", "",
           "Each GPU of each run judged once with the shipped limits (no measuring again). The runs helped make them, but "
           "h100b-check-1, run after they were made (board bd511e11, which no table has seen).", "",
           "| run | verdict |", "|---|---|"]
    table = limit_table.load(limit_table.RANGES)
    alarms = 0
    for run in runs_of(paths):
        status, line, _ = judge(run.part, table)
        alarms += status != verdicts.NORMAL
        out.append(f"| {run.label} | {line[:150]} |")
    out += ["", f"**False alarms: {alarms} of {len(runs_of(paths))}.**", ""]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", nargs="+", default=[], help="runs of README command 1's preset")
    parser.add_argument("--check", nargs="+", default=[], help="runs of the check preset")
    parser.add_argument("--same-code", action="append", default=[], metavar="A=B")
    parser.add_argument("--skip", action="append", default=[], help="sections to skip: check node compare power")
    args = parser.parse_args()
    same_code = dict(pair.split("=", 1) for pair in args.same_code)
    quick, check = runs_of(archive.expand(args.quick)), runs_of(archive.expand(args.check))
    out = [f"{len(quick) + len(check)} GPUs' runs: " + "; ".join(
        f"{SHORT.get(s, s)}: {len({r.board for r in quick + check if r.sku == s})} boards"
        for s in sorted({r.sku for r in quick + check})), ""]
    if "check" not in args.skip:
        out += check_section(quick, check)[0]
    if "node" not in args.skip:
        out += node_section(check)
    if "compare" not in args.skip:
        text, same = compare_section(quick + check, same_code)
        out += text
        if "power" not in args.skip:
            out += power_section(quick + check, same, same_code)
    out += one_shot(args.quick + args.check)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
