"""The one precision a reader may trust, written into the run's JSON beside each declared result.

A row measured under the stopping rule knows its own sampling interval (gpubench.precision.sampling_intervals: how
well its launches know their mean within this run). What a repeated run of the same board gives is wider: page
placement, clocks and what no run sees of itself (noise.stated_half_width adds the class's calibrated run-to-run
deviation). That is the precision the card states, and the card step writes it into each row as
gpubench.precision.stated: {quantity: {"half_width", "low", "high"}}, a 95% interval of repeated runs of this board.
The card, compare's report, history, fleet and Prometheus read it through `half_width` below, and a run from before it
(or made with --gpubench_card=none) gets the same number computed from the same model.
"""
from analysis.cards import noise
from analysis.model import report as report_model

ABOUT = ("gpubench.precision.stated of each row: for each declared result its 95% interval over repeated runs of "
         "this board (the run's own sampling interval and its class's calibrated run-to-run deviation, "
         "analysis/cards/noise_model.json); none for a class the host moves (host rows, host links: never judged); "
         "gpubench.precision.sampling_intervals is the launches' interval within this run only")


def half_width(row, quantity, context, model=None):
    """The stated 95% precision of a row's result, relative: the one its JSON carries, else computed as the card step
    computes it; None for a row of fixed effort or a result not read from the timed launches."""
    written = ((row.precision or {}).get("stated") or {}).get(quantity)
    if isinstance(written, dict) and written.get("half_width") is not None:
        return float(written["half_width"])
    if row.stop not in ("target", "cap"):
        return None
    model = model if model is not None else noise.load()
    return noise.stated_of_row(model, row, quantity, context)


def _value(raw, quantity):
    value = raw.get("real_time") if quantity == "time" else raw.get(quantity)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def annotate(data, model=None):
    """Writes the stated precision of every declared result into the rows of a run's JSON dict (its first readings and
    a verdict's second), each GPU's by its own context; returns how many results it stated."""
    model = model if model is not None else noise.load()
    report = report_model.from_dict(data)
    contexts = {gpu: part.context for gpu, part in report.devices()}
    again = data.get(report_model.MEASURED_AGAIN)
    lists = [data.get("benchmarks", [])]
    if isinstance(again, dict) and isinstance(again.get("benchmarks"), list):
        lists.append(again["benchmarks"])
    stated = 0
    for raws in lists:
        for raw in raws:
            if not isinstance(raw, dict) or not isinstance(raw.get("gpubench"), dict):
                continue
            row = report_model.Row(raw)
            precision = raw["gpubench"].get("precision")
            if not row.ok or not isinstance(precision, dict):
                continue
            context = contexts.get(row.gpu, contexts.get(None, report.context))
            found = {}
            for quantity in row.results:
                value = _value(raw, quantity)
                width = half_width(row, quantity, context, model) if "stated" not in precision else None
                if value is None or width is None:
                    continue
                found[quantity] = {"half_width": float(f"{width:.4g}"), "low": float(f"{value - abs(value) * width:.7g}"),
                                   "high": float(f"{value + abs(value) * width:.7g}")}
            if found:
                precision["stated"] = found
                stated += len(found)
    if stated:
        data.setdefault("gpubench", {})["stated_precision"] = ABOUT
    return stated
