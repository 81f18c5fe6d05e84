"""The committed device runs of test/fixtures, read and judged as card.py --check judges them: one place for the tests
that read them."""
import gzip
import json
import os
import tempfile

from analysis.model import report as report_model
from analysis.verdict import judge
from analysis.verdict import limits as limit_table

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIXTURES = os.path.join(ROOT, "test", "fixtures")


def fixture(name):
    with gzip.open(os.path.join(FIXTURES, name), "rt") as f:
        return json.load(f)


def judged(data):
    """[(gpu, card, status, line)] and the node's verdict of a run given as its JSON."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.json")
        with open(path, "w") as f:
            json.dump(data, f)
        cards = judge.judge_all(report_model.load(path), limit_table.load(limit_table.RANGES))
    return cards, judge.node_verdict(cards)
