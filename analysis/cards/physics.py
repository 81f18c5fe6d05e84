"""What the physics checks read: each case of a run with its repetitions averaged. Every family module may
have `physics(rows, report)` -> [(name, ok, detail)]: what its experiment exists to show, with wide margins (a
broken experiment, not a slow GPU). test/validation/validate_physics.py finds and runs them on a device run."""
import importlib
import pkgutil

from analysis.cards import families
from analysis.model.values import mean_rows, short


class Case(dict):
    """One case's counters averaged over its repetitions, with its registered name and arguments."""

    def __init__(self, merged, registered):
        super().__init__(merged)
        self.args = merged["args"]
        self.registered = registered
        self.name = short(merged["run_name"])


def rows_by_name(report):
    """Every case of the run (repetitions averaged), keyed by its run name."""
    registered = {row["run_name"]: row.registered for row in report.rows()}
    return {m["run_name"]: Case(m, registered[m["run_name"]]) for m in mean_rows(report.rows())}


def cases(rows, registered, **args):
    """The cases registered as `registered` whose arguments equal `args`."""
    return [c for c in rows.values() if c.registered == registered
            and all(c.args.get(k) == v for k, v in args.items())]


def one(rows, registered, **args):
    """The counters of the one case registered as `registered` with `args`, or {}."""
    found = cases(rows, registered, **args)
    return found[0] if found else {}


def near(name, got, expected, margin, what):
    """(name, ok, detail) of a physics check: `got` within `margin` (a fraction) of `expected`; `what` says what
    `got` is, e.g. "sectors per request"."""
    ok = (1 - margin) * expected <= got <= (1 + margin) * expected
    return name, ok, f"{got:.3f} {what}, expected {expected:g} +-{margin:.0%}"


def modules():
    """Every family module with physics checks, by name."""
    found = [importlib.import_module(f"{families.__name__}.{info.name}") for info in pkgutil.iter_modules(families.__path__)
             if not info.name.startswith("_")]
    return sorted((m for m in found if hasattr(m, "physics")), key=lambda m: m.__name__)


def check(report):
    """[(name, ok, detail)] of every family's physics on one GPU's report."""
    rows = rows_by_name(report)
    return [result for module in modules() for result in module.physics(rows, report)]
