"""Two cards' values side by side (card.py --compare A.card.json B.card.json): what changed in what a run concludes.
Two runs, row by row and with their noise, are compare.py's."""
import os

from analysis.model import cli
from analysis.model import report as report_model


def read_card(path):
    """The values of a .card.json (one GPU's or a host's), by key, or a UsageError."""
    try:
        data = report_model.read_json_object(path, "not a card")  # a file, or one inside a raw.tar.xz
    except report_model.ReportError as e:
        raise cli.UsageError(str(e)) from None
    if not isinstance(data.get("values"), list):
        raise cli.UsageError(f"{path}: not a card (no 'values'); cards are the .card.json files gpubench writes")
    device = data.get("device") if isinstance(data.get("device"), dict) else {}
    return {v["key"]: v for v in data["values"] if isinstance(v, dict) and v.get("value") is not None}, device


def compare_cards(paths, tolerance, allow_different=False):
    """card.py --compare: two cards' values side by side, each within --tolerance (capacities: their brackets
    meet); 0, or 1 when one disagrees. Runs are compared row by row with their noise by compare.py."""
    cards, devices = zip(*(read_card(path) for path in paths))
    names = [device.get("name") for device in devices]
    if names[0] != names[1] and not allow_different:
        raise cli.UsageError(f"the cards are of different GPUs ({names[0]} and {names[1]}): their values differ by "
                             "design; pass --allow-different-devices to compare them anyway")
    shared = [key for key in cards[0] if key in cards[1]]
    print(f"| value | {os.path.basename(paths[0])} | {os.path.basename(paths[1])} | difference |")
    print("|---|---:|---:|---:|")
    worst = 0.0
    disagreeing = []
    for key in shared:
        a, b = cards[0][key], cards[1][key]
        if "bracket" in a and "bracket" in b:
            # Capacities: each run resolves the edge to its own grid; they agree when the brackets meet.
            (a_low, a_high), (b_low, b_high) = a["bracket"], b["bracket"]
            meet = a_low <= b_high and b_low <= a_high
            if not meet:
                disagreeing.append(key)
            print(f"| {key} | {a_low:.5g} .. {a_high:.5g} | {b_low:.5g} .. {b_high:.5g} | "
                  f"{'edges meet' if meet else '**edges apart**'} |")
            continue
        largest = max(abs(a["value"]), abs(b["value"]))
        diff = abs(a["value"] - b["value"]) / largest if largest > 0 else 0.0
        worst = max(worst, diff)
        if diff > tolerance:
            disagreeing.append(key)
        print(f"| {key} | {a['value']:.5g} | {b['value']:.5g} | {diff:.2%}{' **over tolerance**' if diff > tolerance else ''} |")
    print(f"\n{len(shared)} shared values; largest difference of a latency, rate or fraction {worst:.2%} "
          f"(tolerance {tolerance:.0%}); values that disagree: {', '.join(disagreeing) if disagreeing else 'none'}.")
    presets = [device.get("preset", "unknown") for device in devices]
    if presets[0] != presets[1]:
        print(f"The cards are of different presets ({presets[0]}, {presets[1]}): a value that is a sweep's best, "
              "median or plateau is read over different points in each, so a difference there is not run-to-run "
              "noise; compare runs of one preset.")
    only = [k for k in cards[0] if k not in cards[1]] + [k for k in cards[1] if k not in cards[0]]
    if only:
        print("In one card only: " + ", ".join(only))
    return 0 if not disagreeing else 1
