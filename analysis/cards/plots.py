#!/usr/bin/env python3
"""Figures from gpubench JSON (needs matplotlib):

- latency.png: pointer-chase latency against working-set size, every GPU load path (128-byte stride),
  shared memory, and the CPU chase on one figure (ns per load, log-2 x axis), with the levels
  analysis/model/levels.py reads off the GPU's cached curve marked;
- carveout.png (with --carveout-output): the cached chase's L1 edge under each L1/shared carveout;
- parallelism.png (with --parallelism-output): MemoryParallelism bandwidth against warps per SM, one
  line per chains-per-warp count, beside the stream copy's bandwidth.

    plots.py run.json [more.json ...] -o latency.png [--carveout-output c.png] [--parallelism-output p.png]
"""
import argparse
import os
import sys
from collections import defaultdict

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from analysis.model import cli  # noqa: E402
from analysis.model import levels  # noqa: E402
from analysis.cards.families import cache_bandwidth, memory_parallelism, memory_parallelism_cpu  # noqa: E402
from analysis.cards.families import burn, pointer_chase, stream  # noqa: E402
from analysis.model.values import mean_rows  # noqa: E402

SERIES = [  # family, stride filter, label
    ("PointerChase/cached", 128, "GPU, ld.ca (L1 + L2)"),
    ("PointerChase/l2_only", 128, "GPU, ld.cg (L2 only)"),
    ("PointerChase/volatile", 128, "GPU, ld.cv"),
    ("PointerChase/shared", None, "GPU, shared memory"),
    ("PointerChaseCPU", None, "host CPU"),
]


def finish(figure, axes, output, xlabel, ylabel, title, legend_size=None):
    """Labels, grid and legend, then the file; every figure ends the same way."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", linewidth=0.3)
    axes.legend(fontsize=legend_size)
    figure.tight_layout()
    figure.savefig(output, dpi=130)
    return True


def level_labels(report):
    """[(ns, text)] of each memory level as the card states it (its load-to-use values: the direct chase, L2 the
    median over SMs), so the figure and the card say the same numbers."""
    found = {}
    for v in pointer_chase.memory(report):
        level, _, kind = v["key"].rpartition(".")
        if v["value"] is not None and kind in ("cycles", "ns"):
            found.setdefault(level, {"label": v["label"].replace(" load-to-use latency", "").replace(" (ns)", "")})
            found[level][kind] = v["value"]
    return [(f["ns"], f"{f['label']} {f['ns']:.0f} ns ({f['cycles']:.1f} cycles, load-to-use)")
            for f in found.values() if "ns" in f and "cycles" in f]


def latency_figure(plt, report, device, output):
    figure, axes = plt.subplots(figsize=(9, 5.5))
    plotted = 0
    for family, stride, label in SERIES:
        points = levels.points(report, family, "ns_per_load", stride)
        if not points:
            continue
        axes.plot([s for s, _ in points], [l for _, l in points], marker="o", markersize=3, label=label)
        plotted += 1
        if family == "PointerChase/cached":
            for ns, text in level_labels(report):
                axes.axhline(ns, color="grey", linewidth=0.6, linestyle=":")
                axes.annotate(text, (points[0][0], ns), textcoords="offset points", xytext=(2, 3), fontsize=8,
                              color="dimgrey")
    if not plotted:
        return False
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    return finish(figure, axes, output,
                  "working set (bytes)", "ns per dependent load", f"Pointer-chase latency: {device} and host CPU")


def carveout_figure(plt, report, device, output):
    series = defaultdict(list)
    for row in levels.chase_rows(report, "PointerChase/carveout"):
        series[int(row.args["carveout"])].append((levels.working_set(row), float(row["cycles_per_load"])))
    if not series:
        return False
    figure, axes = plt.subplots(figsize=(8, 4.5))
    for percent, points in sorted(series.items()):
        points.sort()
        axes.plot([s / 1024 for s, _ in points], [c for _, c in points], marker="o", markersize=3,
                  label=f"{percent}% preferred as shared")
    return finish(figure, axes, output,
                  "working set (KiB)", "cycles per dependent load (ld.ca)", f"L1 capacity under L1/shared carveouts: {device}")


def parallelism_figure(plt, report, device, output):
    rows, _ = memory_parallelism.whole_gpu(report)
    if not rows:
        return False
    lines = defaultdict(list)
    for row in rows:
        lines[row["args"]["chains"]].append((row["args"]["warps_per_sm"], row["bytes_per_second"] / 1e12))
    figure, axes = plt.subplots(figsize=(8, 4.8))
    for chains, points in sorted(lines.items()):
        points.sort()
        axes.plot([w for w, _ in points], [b for _, b in points], marker="o", markersize=3,
                  label=f"{chains} chain{'s' if chains > 1 else ''} per warp")
    rate, label = stream.reference(report)
    if rate:
        axes.axhline(rate / 1e12, color="black", linewidth=0.8, linestyle="--", label=label)
        axes.axhline(0.8 * rate / 1e12, color="grey", linewidth=0.6, linestyle=":", label=f"80% of {label}")
    axes.set_xscale("log", base=2)
    return finish(figure, axes, output,
                  "warps per SM (all SMs)", "TB/s (128-byte lines read)", f"Memory-level parallelism: {device}", legend_size=8)


def rate_series(report, series, x_key, scale):
    """[(label, sorted (x, bytes_per_second / scale))] of each (registered name, label) the run has rows of,
    repetitions averaged."""
    found = []
    for registered, label in series:
        rows = mean_rows(report.rows(registered, "bytes_per_second"))
        if rows:
            found.append((label, sorted((r[x_key], r["bytes_per_second"] / scale) for r in rows)))
    return found


def mlp_figure(plt, report, device, output):
    """Bandwidth against loads in flight, GPU and host on one log-log figure (seed 002's conclusion: a
    CPU gets its bandwidth from few, smart threads, a GPU from many)."""
    series = [("MemoryParallelism/gpu", f"{device}, every SM"), ("MemoryParallelism/one_sm", f"{device}, one SM"),
              ("MemoryParallelismCPU/chase", "host CPU")]
    found = rate_series(report, series, "loads_in_flight", 1e9)
    if not found:
        return False
    figure, axes = plt.subplots(figsize=(8, 5))
    for label, points in found:
        axes.scatter([p[0] for p in points], [p[1] for p in points], s=14, label=label)
    rate, label = stream.reference(report)
    if rate:
        axes.axhline(rate / 1e9, color="black", linewidth=0.8, linestyle="--", label=f"GPU {label}")
    _, read = memory_parallelism_cpu.best(report)
    if read:
        axes.axhline(read / 1e9, color="grey", linewidth=0.8, linestyle="--", label="host plain read")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    return finish(figure, axes, output,
                  "loads in flight (chains x threads or warps)", "GB/s", "Memory-level parallelism: GPU and host", legend_size=8)


def bandwidth_figure(plt, report, device, output):
    """Read bandwidth against working set (CacheBandwidth), the counterpart of the latency staircase, with
    the plateaus bandwidth_levels reads and the theoretical DRAM bandwidth."""
    series = [("CacheBandwidth/read", "plain loads (L1 and L2)"), ("CacheBandwidth/read_cg", "ld.cg (L1 bypassed)")]
    found = rate_series(report, series, "working_set_bytes", 1e12)
    if not found:
        return False
    figure, axes = plt.subplots(figsize=(8, 4.8))
    for label, points in found:
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=label)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    for level in cache_bandwidth.plateaus(report):
        axes.axhline(level["bytes_per_second"] / 1e12, color="grey", linewidth=0.6, linestyle=":")
        axes.annotate(f"{level['name']} {level['bytes_per_second'] / 1e12:.1f} TB/s, "
                      f"{level['bytes_per_clock_per_sm']:.0f} B/clk/SM", (axes.get_xlim()[0], level["bytes_per_second"] / 1e12),
                      fontsize=7, va="bottom")
    peak = float(report.context.get("gpu_dram_bandwidth_theoretical_gbs", 0) or 0) / 1e3
    if peak:
        axes.axhline(peak, color="black", linewidth=0.8, linestyle="--", label="theoretical DRAM")
    return finish(figure, axes, output,
                  "working set (bytes, all SMs)", "TB/s read", f"Read bandwidth by working set: {device}", legend_size=8)


def burn_figure(plt, report, device, output):
    """The burn's seconds: GEMM rate and memory-test rate, SM clock, power against its limit, GPU and HBM temperature;
    the seconds the hardware held the clocks (HW slowdown, thermal, power brake) shaded red, SW thermal orange."""
    row = burn.burn_row(report)
    data = burn.series(row)
    at = data.get("burn_at_s") or []
    if not at:
        return False
    figure, axes = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
    panels = ((axes[0], (("gemm_tflops", "FP16 GEMM (TFLOP/s)"),), "TFLOP/s"),
              (axes[1], (("nvml_sm_mhz", "SM clock"), ("nvml_memory_mhz", "memory clock")), "MHz"),
              (axes[2], (("power_w", "board power"),), "W"),
              (axes[3], (("temperature_c", "GPU"), ("memory_temperature_c", "HBM")), "C"))
    for panel, lines, unit in panels:
        for key, label in lines:
            values = data.get(key) or []
            if any(values):
                panel.plot(at[:len(values)], values, label=label, linewidth=1.2)
        panel.set_ylabel(unit)
        panel.grid(True, linewidth=0.3)
        if unit in ("TFLOP/s", "W"):
            top = max((max(data.get(key) or [0]) for key, _ in lines), default=0)
            panel.set_ylim(0, top * 1.15 or None)  # a rate's wobble drawn at its scale
    memory = data.get("memory_gbs") or []
    if any(memory):
        twin = axes[0].twinx()
        twin.plot(at[:len(memory)], memory, color="tab:green", linewidth=1.0, label="memory test (GB/s)")
        twin.set_ylabel("GB/s")
        twin.set_ylim(bottom=0)
        twin.legend(fontsize=8, loc="lower right")
    limit = row.value("power_limit_w")
    if limit:
        axes[2].axhline(limit, color="grey", linestyle="--", linewidth=0.8, label=f"limit {limit:.0f} W")
    for t, bits in zip(at, data.get("clock_reasons") or []):
        bits = int(bits or 0)
        color = "red" if bits & 0xC8 else "orange" if bits & 0x20 else None
        if color:
            for panel in axes:
                panel.axvspan(t - 1, t, color=color, alpha=0.15, linewidth=0)
    events = "; ".join(f"{words} from {first:.0f} s ({held} s)" for _, words, _, first, held in burn.clock_events(row))
    planted = " (reasons planted: GPUBENCH_PLANT_BURN)" if "clock_reasons_real" in data else ""
    axes[0].set_title(f"{device}: burn, {row.value('burn_s') or 0:.0f} s"
                      + (f"\nclocks held by: {events}{planted}" if events else ""), fontsize=9)
    for panel in axes:
        panel.legend(fontsize=8, loc="lower left")
    axes[3].set_xlabel("seconds into the burn")
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    return True


def burn_node_figure(plt, parts, output):
    """A node's burn, its GPUs side by side: each GPU's GEMM rate, power and temperature against the node's common
    clock (each burn's start, `started_unix_s`, set against the first)."""
    burns = [(gpu, burn.burn_row(part)) for gpu, part in parts]
    burns = [(gpu, row) for gpu, row in burns if row is not None and burn.series(row).get("burn_at_s")]
    if len(burns) < 2:
        return False
    first = min(row.value("started_unix_s") or 0 for _, row in burns)
    figure, axes = plt.subplots(3, 1, figsize=(8, 7.5), sharex=True)
    for gpu, row in burns:
        data = burn.series(row)
        at = [t + (row.value("started_unix_s") or first) - first for t in data["burn_at_s"]]
        for panel, key in zip(axes, ("gemm_tflops", "power_w", "temperature_c")):
            values = data.get(key) or []
            panel.plot(at[:len(values)], values, label=f"GPU {gpu}", linewidth=1.1)
    for panel, unit in zip(axes, ("FP16 GEMM (TFLOP/s)", "board power (W)", "GPU temperature (C)")):
        panel.set_ylabel(unit, fontsize=9)
        panel.grid(True, linewidth=0.3)
        panel.legend(fontsize=7, loc="lower right", ncol=4)
    for panel, key in zip(axes[:2], ("gemm_tflops", "power_w")):
        top = max(max(burn.series(row).get(key) or [0]) for _, row in burns)
        panel.set_ylim(0, top * 1.15 or None)
    name = parts[0][1].context.get("gpu_name", "GPU")
    axes[0].set_title(f"{len(burns)} x {name}: every GPU's burn at once", fontsize=10)
    axes[2].set_xlabel("seconds from the first GPU's start")
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    return True


FIGURES = ((latency_figure, "-latency.png"), (carveout_figure, "-carveout.png"),
           (parallelism_figure, "-parallelism.png"), (mlp_figure, "-mlp.png"), (bandwidth_figure, "-bandwidth.png"),
           (burn_figure, "-burn.png"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    parser.add_argument("-o", "--output", default="latency.png")
    parser.add_argument("--carveout-output")
    parser.add_argument("--parallelism-output")
    parser.add_argument("--mlp-output", help="GPU and host bandwidth against loads in flight")
    parser.add_argument("--bandwidth-output", help="read bandwidth against working set (CacheBandwidth)")
    parser.add_argument("--gpu", type=int, help="of a run over several GPUs, the one to plot (default: the first)")
    args = parser.parse_args()
    outputs = [(make, cli.writable(path, "figure")) for make, path in
               ((latency_figure, args.output), (carveout_figure, args.carveout_output),
                (parallelism_figure, args.parallelism_output), (mlp_figure, args.mlp_output),
                (bandwidth_figure, args.bandwidth_output)) if path]
    parts = dict(cli.load(args.json).devices())
    gpu = args.gpu if args.gpu is not None else next(iter(parts))
    if gpu not in parts:
        raise cli.UsageError(f"--gpu {gpu}: the run holds GPU(s) {', '.join(str(g) for g in parts)}")
    try:
        import matplotlib
    except ImportError:
        raise cli.UsageError(f"matplotlib is not installed for {sys.executable} (Debian: apt-get install "
                             "python3-matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = parts[gpu]
    device = report.context.get("gpu_name", "GPU") + (f" (GPU {gpu})" if gpu is not None else "")
    wrote = [path for make, path in outputs if make(plt, report, device, path)]
    if not wrote:
        return cli.fail("no rows to plot in the input", 1)
    print("wrote " + ", ".join(wrote))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
