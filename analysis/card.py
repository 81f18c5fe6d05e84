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
from analysis.cards import stated  # noqa: E402
from analysis.comparing import card_diff  # noqa: E402
from analysis.model import cli  # noqa: E402
from analysis.model import report as report_model  # noqa: E402
from analysis.running import measure_again  # noqa: E402
from analysis.verdict import health, judge, links, node_card  # noqa: E402
from analysis.verdict import limits as limit_table  # noqa: E402
from analysis.verdict.table import ABNORMAL, NAME_OF, action, exit_help  # noqa: E402


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


def write_node_plots(report, prefix):
    """The node's own figures (its GPUs side by side): the burn's, where the run has one."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    from analysis.cards import plots
    drawn = plots.burn_node_figure(plt, report.devices(), prefix + "-burn.png")
    plt.close("all")
    return f"Plots: {os.path.basename(prefix)}-burn.png." if drawn else ""


def main():
    argv = sys.argv[1:]
    rerun_args = []
    if "--" in argv:  # --rerun GPUBENCH -- the run's own flags
        argv, rerun_args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    parser = argparse.ArgumentParser(description=__doc__.replace("{EXITS}", exit_help()),
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
                        help="is each GPU normal: exit " + exit_help())
    parser.add_argument("--subset", action="store_true",
                        help="with --check: judge only the values the run measured (a filtered run, on purpose)")
    parser.add_argument("--limits", "--ranges", dest="limits_file", default=limit_table.default_path(),
                        help="the reference limits (default: $GPUBENCH_RANGES, else the shipped ones)")
    parser.add_argument("--rerun", metavar="GPUBENCH",
                        help="with --check: measure the families of outside values again with this gpubench (the "
                             "run's flags after --) before calling them a fault")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.json) != 2:
            parser.error("--compare takes two .card.json files")
        if not 0 <= args.tolerance < float("inf"):
            raise cli.UsageError(f"--tolerance {args.tolerance}: give a fraction of 0 or more (0.02: 2%)")
        return card_diff.compare_cards(args.json, args.tolerance, args.allow_different_devices)
    if (args.subset or args.rerun) and not args.check:
        parser.error("--subset and --rerun go with --check")
    try:
        limits = limit_table.load(args.limits_file)
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
        target = args.history or os.environ.get("GPUBENCH_HISTORY")
        if target:
            from analysis.store import history_store  # here: only a check with a history reads it
            history_store.keep(target, args.json[0], merged, [(c, c.judged[0]) for _, c in built if c.judged],
                         lambda line: say("card.py: " + line))
    else:
        built, judged_links = [(gpu, judge.build(part, limits)) for gpu, part in merged.devices()], None
    again = getattr(merged, "measured_again", None) if args.check else None
    if len(args.json) == 1 and (write or again):
        keep_in_run(args.json[0], again)
    if write:
        if len(built) == 1:
            _, note = write_card(merged.devices()[0][1], prefix, args.plots, built[0][1])
        else:
            note, _ = write_host_card(merged, prefix, args.plots, dict(built), limits, judged_links)
        if note:
            print(f"card.py: {note}", file=sys.stderr)
        print(f"wrote {prefix}.md and {prefix}.json", file=sys.stderr)
    return status


def say(line):
    print(line, file=sys.stderr)


def acceptance(report, limits, subset=False, rerun=None, rerun_args=()):
    """--check: one line per GPU, one for the node where there are several, and a last line with the verdict's
    name, exit and action; the worst status. With `rerun`, the families behind outside values are measured once
    more on the GPUs where they were outside, and the verdict is the second reading's: a value outside twice is
    a fault. Returns (status, the report judged last, [(gpu, card)], its links judged or None)."""
    judged = judge.judge_all(report, limits, subset)
    cut_short = any(card.cut_short for _, card, _, _ in judged)  # incomplete whatever a second reading says
    if rerun and not cut_short and any(status == ABNORMAL or judge.near(card.checks) for _, card, status, _ in judged):
        first = {(gpu, c["key"]): c["value"] for gpu, card, _, _ in judged
                 for c in judge.outside(card.checks) + judge.near(card.checks)}
        report = measure_again.measure_again(report, judged, rerun, rerun_args, say)
        judged = judge.judge_all(report, limits, subset)
        for gpu, card, _, _ in judged:
            for c in card.checks["checks"]:
                if (gpu, c["key"]) in first and c["layer"] != "node":
                    again = "still outside" if c["inside"] is False else "inside"
                    say(f"card.py: measuring again: {c['label']}: first {first[(gpu, c['key'])]:.4g}, again "
                        f"{c['value']:.4g} {c['unit']} ({again}, {c['layer']})")
    for gpu, card, status, line in judged:
        where = f"GPU {gpu}: " if gpu is not None else ""
        say(f"card.py --check: {where}{card.context.get('gpu_name')}: {line}")
    judged_links = None
    if len(judged) > 1:
        judged_links = links.judged(report, limits)
        link_findings = judged_links[1]
        for line in map(links.render, link_findings):
            say(f"card.py --check: {line}")
        status, line = judge.node_line(judged, link_findings)
        say(f"card.py --check: node: {line}")
    else:
        status, line = judged[0][2], judged[0][3]
    say(f"card.py --check: verdict {NAME_OF[status]}, exit {status}, {action(status)}: {line}")
    return status, report, [(gpu, card) for gpu, card, _, _ in judged], judged_links


def keep_in_run(path, again=None):
    """Writes into the run's JSON (whole, then renamed) each result's stated precision (analysis/cards/stated.py) and,
    with `again`, the verdict's second measurement, so that card.py --check of the saved run gives the verdict given
    live; its first readings stay as they were. A run kept in an archive or compressed is left as it is."""
    if path.endswith(".gz") or not os.path.isfile(path):
        return
    data = report_model.read_json(path)
    if again:
        data[report_model.MEASURED_AGAIN] = again
    if not stated.annotate(data) and not again:
        return
    partial = path + ".partial"
    with open(partial, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(partial, path)
    if again:
        say(f"card.py: the second measurement is kept in {path} ({report_model.MEASURED_AGAIN})")


def write_card(report, prefix, plots, card):
    note = write_plots(report, prefix) if plots else ""
    with open(prefix + ".json", "w") as f:
        json.dump(card.to_json(), f, indent=1)
    markdown = card.to_markdown(note, judge.limit_lines(card) + health.table(card.context))
    with open(prefix + ".md", "w") as f:
        f.write(markdown)
    return (card, markdown), note


def write_host_card(report, prefix, plots, cards_by_gpu, limits=None, judged_links=None):
    """A run over several GPUs: each GPU's card as PREFIX-gpuN.md/.json (and figures), PREFIX.md the node card (the
    GPUs side by side, the NVLink matrix, the verdicts) and PREFIX.json holding every GPU's card and the links, the
    values' keys as gpu:N/key so that --compare pairs the same GPU's values. `judged_links`: links.judged of this
    report where the check has them already."""
    notes, built = [], []
    for gpu, part in report.devices():
        (card, _), note = write_card(part, f"{prefix}-gpu{gpu}", plots, cards_by_gpu[gpu])
        built.append((gpu, card))
        notes.append(note)
    if plots:
        notes.append(write_node_plots(report, prefix))
    link_values, link_findings = judged_links or links.judged(report, limits)
    node = judge.node_verdict([(gpu, card, *card.judged) for gpu, card in built], link_findings) \
        if all(card.judged for _, card in built) else None
    markdown = node_card.node_markdown(report, built, link_values, link_findings, node and node["line"]).replace(
        "`card-gpu", f"`{os.path.basename(prefix)}-gpu")
    document = node_card.node_document([(gpu, card, os.path.basename(f"{prefix}-gpu{gpu}.json")) for gpu, card in built],
                                       link_values, link_findings, node)
    with open(prefix + ".md", "w") as f:
        f.write(markdown)
    with open(prefix + ".json", "w") as f:
        json.dump(document, f, indent=1)
    return "; ".join(n for n in notes if n), built


if __name__ == "__main__":
    sys.exit(cli.main(main))
