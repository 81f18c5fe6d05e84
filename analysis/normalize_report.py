#!/usr/bin/env python3
"""The seed homework's table for gpubench's Normalize family: per kernel (base, or grouped with group
size g and unroll u), one line per warps-per-block count: time, instructions per element, L2 traffic
over the ideal (N*R, N*W), L2 and DRAM bandwidth, and bars of how busy the FP32 pipe, instruction issue,
L2 and DRAM were (CUPTI's percentages of peak). Ends with the warp count at which each kernel's L2
bandwidth stops growing (within 10% of its best).

    normalize_report.py run.json [--l2-pct 25]
"""
import argparse
import os
import sys
from collections import defaultdict

if __package__ in (None, ""):  # run as a script: the package is the folder above
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.model import cli  # noqa: E402


def bar(percent, width=20):
    filled = int(round(max(0.0, min(100.0, percent)) / 100 * width))
    return "#" * filled + "." * (width - filled)


def kernel_of(row):
    a = row.args
    if row.registered == "Normalize/base":
        return f"base, d_l {a['dl']}"
    return f"grouped, d_l {a['dl']}, g {a['g']}, u {a['u']}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json")
    parser.add_argument("--l2-pct", type=int, default=25, help="input size as a percentage of L2 (25 or 400)")
    args = parser.parse_args()
    report = cli.load(args.json)
    kernels = defaultdict(list)
    for row in report.rows("Normalize", l2_pct=args.l2_pct):
        kernels[kernel_of(row)].append((row.args["warps"], row))
    if not kernels:
        return cli.fail(f"no Normalize rows at l2_pct {args.l2_pct} in {args.json}", 1)
    print(f"Device: {report.context.get('gpu_name', '?')}; input {args.l2_pct}% of L2; one block per SM\n")
    saturation = []
    for label, rows in kernels.items():
        rows.sort(key=lambda r: r[0])
        print(f"### {label}\n")
        print("| warps | time us | insn/el | N*R | N*W | L2 GB/s | L2 % | DRAM GB/s | FP32 | issue | L2 | DRAM |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|")
        for warps, r in rows:
            g = lambda key: float(r.get(key, float("nan")))  # noqa: E731
            print(f"| {warps} | {g('real_time') / 1e3:.1f} | {g('insn_per_element'):.1f} | {g('l2_read_normalized'):.2f} | "
                  f"{g('l2_write_normalized'):.2f} | {g('l2_bytes_per_second') / 1e9:.0f} | {g('l2_utilization'):.0f} | "
                  f"{g('dram_bytes_per_second') / 1e9:.0f} | `{bar(g('fp32_pipe_utilization'))}` | "
                  f"`{bar(g('issue_utilization'))}` | `{bar(g('l2_utilization'))}` | `{bar(g('dram_utilization'))}` |")
        print()
        best = max(float(r.get("l2_bytes_per_second", 0)) for _, r in rows)
        first = next((w for w, r in rows if float(r.get("l2_bytes_per_second", 0)) >= 0.9 * best), None)
        saturation.append((label, first, best))
    print("L2 bandwidth within 10% of each kernel's best from:")
    for label, warps, best in saturation:
        print(f"- {label}: {warps} warps per block ({best / 1e9:.0f} GB/s at best)")
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main))
