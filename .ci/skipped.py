#!/usr/bin/env python3
"""How many ctest tests skipped, and why, grouped by reason (from ctest's LastTest.log): ctest's closing line
counts them as passed."""
import collections
import re
import sys

log = sys.argv[1] if len(sys.argv) > 1 else "build/Testing/Temporary/LastTest.log"
try:
    with open(log, errors="replace") as f:
        text = f.read()
except OSError as e:
    sys.exit(f"skipped.py: {log}: {e.strerror}")
reasons = collections.Counter()
for block in re.split(r"\n(?=\d+/\d+ Testing: )", text):
    name = re.search(r"\d+/\d+ Test: (\S+)", block)
    if not name or not re.search(r"Test Skipped|\[  SKIPPED \]|skipped '|^SKIPPED: ", block, re.M):
        continue
    why = next((line.strip() for line in block.splitlines()
                if re.search(r"needs a GPU|skipped '|^SKIPPED: ", line) and "[  SKIPPED ]" not in line), "")
    why = re.sub(r"^.*skipped '|^SKIPPED: ", "", why).rstrip("'") or "(no reason printed)"
    reasons[why[:160]] += 1
total = sum(reasons.values())
print(f"ctest: {total} test(s) skipped" + (":" if total else ""))
for why, count in reasons.most_common():
    print(f"  {count} x {why}")
