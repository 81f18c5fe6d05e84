#!/usr/bin/env python3
"""The node check for monitoring: a Prometheus textfile (node_exporter's textfile collector) from a check's card
JSON and run JSON, written whole and then renamed into place, so that the collector never reads half a file.

    prometheus.py --card CARD.json --run RUN.json --out DIR/gpubench.prom [--node NAME] [--duration S]

One series per GPU and per NVLink link, labelled as dcgm-exporter labels its own (Hostname, gpu, UUID, pci_bus_id,
modelName) so that the two join: the verdict (gpubench_gpu_verdict{verdict=...} 1, and its exit status), each value
a limit judged (gpubench_gpu_value, gpubench_gpu_value_inside), each link's rate one way and whether it is within
its limits; for the node, its verdict, the check's time and when it ended. Exit 0, or 2 on bad input.
"""
import argparse
import math
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import cli  # noqa: E402
from analysis.model import report as report_model  # noqa: E402

HELP = {
    "gpubench_gpu_verdict": "the check's verdict of the GPU (1 on the series of its verdict)",
    "gpubench_gpu_verdict_exit": "the exit status of the GPU's verdict (analysis/verdict/verdicts.json)",
    "gpubench_gpu_value": "a value of the GPU that a limit judged, in its unit",
    "gpubench_gpu_value_inside": "1 when the value is within its limit, 0 when outside",
    "gpubench_link_one_way_bytes_per_second": "an NVLink pair's copy rate one way, from GPU to GPU",
    "gpubench_link_inside": "1 when the link is within its limits (architecture and the node's other links)",
    "gpubench_gpu_health_finding": "a finding of the GPU's health state (NVML), 1 on the series of its code and action",
    "gpubench_node_verdict": "the check's verdict of the node (1 on the series of its verdict)",
    "gpubench_node_verdict_exit": "the exit status of the node's verdict",
    "gpubench_check_duration_seconds": "how long the check took",
    "gpubench_check_timestamp_seconds": "when the check ended (Unix time)",
}


def escaped(value):
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def series(name, labels, value):
    inner = ",".join(f'{k}="{escaped(v)}"' for k, v in labels.items() if v is not None)
    return f"{name}{{{inner}}} {value:.10g}"


def gpu_labels(hostname, gpu, device):
    return {"Hostname": hostname, "gpu": gpu, "UUID": device.get("uuid"), "pci_bus_id": device.get("pci_bus_id"),
            "modelName": device.get("name")}


def lines_of(card, hostname, duration, ended):
    """The textfile's lines: HELP and TYPE once per metric, then its series."""
    by_metric = {name: [] for name in HELP}
    devices = card["devices"] if "devices" in card else [dict(card, gpu=0)]
    uuid_of = {}
    for entry in devices:
        gpu = entry.get("gpu", 0)
        device = entry.get("device", {})
        uuid_of[gpu] = device.get("uuid")
        labels = gpu_labels(hostname, gpu, device)
        judged = entry.get("verdict")
        if judged:
            by_metric["gpubench_gpu_verdict"].append(series("gpubench_gpu_verdict", labels | {"verdict": judged["name"]},
                                                            1))
            by_metric["gpubench_gpu_verdict_exit"].append(series("gpubench_gpu_verdict_exit", labels, judged["exit"]))
        for f in (judged or {}).get("reasons", []) + (judged or {}).get("warnings", []):
            if f.get("action") in ("drain", "warn"):  # a health finding (analysis/verdict/health.py)
                by_metric["gpubench_gpu_health_finding"].append(
                    series("gpubench_gpu_health_finding", labels | {"code": f["code"], "action": f["action"]}, 1))
        for c in (entry.get("ranges") or {}).get("checks", []):
            if c.get("inside") is None or not isinstance(c.get("value"), (int, float)) or not math.isfinite(c["value"]):
                continue
            value_labels = labels | {"key": c["key"], "layer": c["layer"], "unit": c.get("unit")}
            by_metric["gpubench_gpu_value"].append(series("gpubench_gpu_value", value_labels, c["value"]))
            by_metric["gpubench_gpu_value_inside"].append(series("gpubench_gpu_value_inside", value_labels,
                                                                 1 if c["inside"] else 0))
    for link in card.get("links", []):
        labels = {"Hostname": hostname, "from_gpu": link["from"], "to_gpu": link["to"],
                  "from_UUID": uuid_of.get(link["from"]), "to_UUID": uuid_of.get(link["to"])}
        if isinstance(link.get("one_way"), (int, float)):
            by_metric["gpubench_link_one_way_bytes_per_second"].append(
                series("gpubench_link_one_way_bytes_per_second", labels, link["one_way"]))
        if "inside" in link:
            by_metric["gpubench_link_inside"].append(series("gpubench_link_inside", labels, 1 if link["inside"] else 0))
    node = card.get("verdict") if "devices" in card else None
    if node:
        by_metric["gpubench_node_verdict"].append(series("gpubench_node_verdict",
                                                         {"Hostname": hostname, "verdict": node["name"]}, 1))
        by_metric["gpubench_node_verdict_exit"].append(series("gpubench_node_verdict_exit", {"Hostname": hostname},
                                                              node["exit"]))
    if duration is not None:
        by_metric["gpubench_check_duration_seconds"].append(series("gpubench_check_duration_seconds",
                                                                   {"Hostname": hostname}, duration))
    by_metric["gpubench_check_timestamp_seconds"].append(series("gpubench_check_timestamp_seconds",
                                                                {"Hostname": hostname}, ended))
    out = []
    for name, found in by_metric.items():
        if found:
            out += [f"# HELP {name} {HELP[name]}", f"# TYPE {name} gauge", *found]
    return out


def write_atomically(path, text):
    """The file written beside its place and renamed: a reader sees the old file or the new, never a part."""
    directory = os.path.dirname(os.path.abspath(path))
    partial = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.partial")
    with open(partial, "w") as f:
        f.write(text)
    os.chmod(partial, 0o644)
    os.replace(partial, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--card", help="the check's card JSON (a node card or one GPU's)")
    parser.add_argument("--run", help="the check's run JSON: its host name when --node is not given")
    parser.add_argument("--verdict", help="the node's verdict where there is no card (missing, busy) or to state it")
    parser.add_argument("--verdict-exit", type=int, help="that verdict's exit status")
    parser.add_argument("--out", required=True, help="the textfile, e.g. /var/lib/prometheus/node-exporter/gpubench.prom")
    parser.add_argument("--node", help="the Hostname label (default: the run's host name)")
    parser.add_argument("--duration", type=float, help="the check's seconds")
    args = parser.parse_args(argv)
    if not args.card and not args.verdict:
        raise cli.UsageError("give --card CARD.json, --verdict NAME, or both")
    try:
        card = report_model.read_json_object(args.card) if args.card else {"devices": []}
    except report_model.ReportError as e:
        raise cli.UsageError(str(e)) from None
    if args.card and not isinstance(card.get("values"), list) and not isinstance(card.get("devices"), list):
        raise cli.UsageError(f"{args.card}: not a card (no 'values' or 'devices'): give the check's .card.json, not "
                             "its run")
    if args.card and not args.verdict and "verdict" not in card:
        raise cli.UsageError(f"{args.card}: the card has no verdict (made without --gpubench_verdict or card.py "
                             "--check): give --verdict NAME, or the checked card")
    if args.verdict and (not card.get("devices") or "verdict" not in card):
        # One GPU's card, or none: the node's verdict is the one given.
        card = card if card.get("devices") is not None else {"devices": [dict(card, gpu=0)]}
        card["verdict"] = {"name": args.verdict, "exit": args.verdict_exit if args.verdict_exit is not None else -1}
    hostname = args.node or (cli.load(args.run).context.get("host_name") if args.run else None)
    if not hostname:
        raise cli.UsageError("no Hostname label: pass --node NAME or --run RUN.json")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise cli.UsageError(f"{args.out}: its folder does not exist")
    write_atomically(args.out, "\n".join(lines_of(card, hostname, args.duration, time.time())) + "\n")
    print(f"prometheus.py: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
