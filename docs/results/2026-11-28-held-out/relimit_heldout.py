#!/usr/bin/env python3
"""Limits against the stated precision, on the cards of healthy runs: each reading a SKU limit judges that lies within
its own stated precision (the card value's `precision`) of that limit. With --show it lists them; without, it moves
each such limit out to the reading less (or plus) its precision (make_ranges.beyond_precision), the reading joins the
limit's seen range and its source says so: the cards named become in-sample for those limits. Capacities, judged by
brackets, are left out. Run from the repository's root; it rewrites analysis/verdict/reference_ranges.json.

    relimit_heldout.py [--show] CARD.json [...]          (a node's: its card-gpuN.json)
"""
import collections
import json
import re
import os
import sys

sys.path.insert(0, os.getcwd())
from analysis.tables import make_ranges  # noqa: E402

RANGES = "analysis/verdict/reference_ranges.json"
SIDES = {"low": -1, "high": +1}
NOTE = ("; healthy held-out readings (their seen range) moved the {side} beyond each by its stated precision, "
        "2026-11-28 (docs/results/2026-11-28-held-out)")
NOTE_PATTERN = r"; (with \d+ healthy held-out readings \([^)]*\), \w+ moved|healthy held-out readings \(their seen range\) " \
               r"moved the \w+) beyond each by its stated precision, 2026-11-28 \(docs/results/2026-11-28-held-out\)"


def too_close(cards, table):
    """{(SKU key, value key, side): [(reading, precision, card)]} against the limits of `table` (reference_ranges.json
    as it is now, not as the card was judged), and how many readings were audited."""
    found, audited = collections.defaultdict(list), 0
    for path in cards:
        try:
            with open(path) as f:
                card = json.load(f)
            values = {value["key"]: value for value in card["values"]}
            layers, checks = card["ranges"]["layers"], card["ranges"]["checks"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"relimit_heldout.py: {path}: not a card's JSON (card.py RUN.json --check --out PREFIX): {e}")
        sku = next((layer["key"] for layer in layers if layer["layer"] == "sku"), None)
        for check in checks:
            value = values.get(check["key"])
            precision = value and value.get("precision")
            reading = check.get("value")
            if check.get("layer") != "sku" or not precision or not reading or "bracket" in value or \
                    "capacity" in check["key"]:
                continue
            audited += 1
            shipped = table["skus"].get(sku, {}).get("ranges", {}).get(check["key"], {})
            for side, sign in SIDES.items():
                limit = shipped.get(side, check.get(side))
                if limit is not None and sign * (limit - reading) / abs(reading) < precision * (1 - 1e-6):  # rounding
                    found[(sku, check["key"], side)].append((reading, precision, os.path.basename(path)))
    return found, audited


def main(show, cards):
    with open(RANGES) as f:
        table = json.load(f)
    found, audited = too_close(cards, table)
    print(f"{audited} SKU-limited readings with a stated precision in {len(cards)} cards; "
          f"{sum(map(len, found.values()))} within it of their limit")
    for (sku, key, side), close in sorted(found.items()):
        entry = table["skus"][sku]["ranges"][key]
        sign = SIDES[side]
        moved = make_ranges.beyond_precision([r for r, _, _ in close], [p for _, p, _ in close], sign)
        readings = [r for r, _, _ in close]
        print(f"  {sku} {key} {side} {entry[side]:.6g}: {len(close)} readings {min(readings):.6g}-{max(readings):.6g} "
              f"(stated +-{min(p for _, p, _ in close):.2%}..{max(p for _, p, _ in close):.2%}; "
              f"{', '.join(sorted({c for _, _, c in close}))}) -> {moved:.6g}")
        if show or sign * (moved - entry[side]) <= 0:
            continue
        entry[side] = round(moved, 6)
        entry["seen"] = [round(min(entry["seen"][0], *readings), 6), round(max(entry["seen"][1], *readings), 6)]
        # One sentence however often it runs: the seen range holds the readings.
        entry["source"] = re.sub(NOTE_PATTERN, "", entry["source"]) + NOTE.format(side=side)
    if not show:
        with open(RANGES, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not [a for a in args if a != "--show"]:
        sys.exit("usage: relimit_heldout.py [--show] CARD.json [...]")
    main("--show" in args, [a for a in args if a != "--show"])
