"""The verdict's second measurement (gpubench --gpubench_verdict): the families behind an outside value, or one
inside its limit by less than its precision, run once more on the GPUs where they were, and the report with those
rows replaced. The judging itself is analysis/verdict/'s; this module only runs gpubench."""
import os
import re
import subprocess
import tempfile

from analysis.model import cli

from analysis.verdict import judge, table, wording
from analysis.model import report as report_model


def measure_again(report, judged, gpubench, args, say):
    """The report with the rows of every family behind an outside value, on the GPUs where it was outside,
    replaced by a second measurement (the other GPUs' rows kept as they were)."""
    if report.context.get("gpubench_preset") in judge.LONG_PRESETS:
        return report  # a burn's or a long memory test's readings are minutes long: the first one stands
    abnormal = [(gpu, card) for gpu, card, status, _ in judged if status == table.ABNORMAL or judge.near(card.checks)]
    names = sorted({family for _, card in abnormal for c in judge.outside(card.checks) + judge.near(card.checks)
                    for family in card.families_of.get(c["key"], ())})
    gpus = sorted({gpu for gpu, _ in abnormal if gpu is not None})
    if not names:
        return report
    first = "; ".join(f"{c['label']} {c['value']:.4g}" for _, card in abnormal for c in judge.outside(card.checks))
    first += "".join(f"; near its limit: {c['label']} {c['value']:.4g} ({wording.margin(c):.1%} inside, +-{c['precision']:.1%})"
                     for _, card in abnormal for c in judge.near(card.checks))
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")(/|$)"
    say(f"card.py: measuring again: {', '.join(names)}" + (f" on GPU {','.join(map(str, gpus))}" if gpus else "") +
        f" (outside at first: {first})")
    device = [f"--gpubench_device={','.join(map(str, gpus))}"] if gpus else []
    kept_args = [a for a in args if not (device and a.startswith("--gpubench_device"))]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "again.json")
        done = subprocess.run([gpubench, *kept_args, *device, f"--benchmark_filter={pattern}",
                               f"--benchmark_out={out}", "--benchmark_out_format=json", "--gpubench_card=none"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if not os.path.exists(out):
            tail = (done.stderr or "").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            say(f"card.py: measuring again failed ({tail[0]}); the first reading stands")
            return report
        again = cli.load(out)
    return report_model.replaced(report, again.all_rows, names, gpus)
