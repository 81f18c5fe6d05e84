#!/usr/bin/env python3
"""Cross-check gpubench's CUPTI counters against Nsight Compute on the same kernels.

For each case, gpubench runs one benchmark with the case's counters (its CUPTI pass: L2 emptied,
then one launch), and ncu profiles the first launch of the same kernel in the same benchmark
(--clock-control none, --print-units base) for the same Perfworks metrics. Two cache protocols:

  ncu-flush  ncu's default --cache-control all: ncu writes back and invalidates the caches just
             before the kernel; gpubench empties L2 with its own scrub after its profiler has started,
             just before the launch. Both count the kernel from an empty L2: every counter must agree.
  same-state gpubench --gpubench_cold_l2 scrubs L2 before every launch and ncu runs with
             --cache-control none. ncu's own set-up still runs between that scrub and the kernel, so
             write-back traffic (dram_write_bytes) may differ; the other counters must agree.

Prints a table; exits 1 if any required pair's medians differ by more than --tolerance (relative)."""
import argparse
import csv
import io
import json
import re
import statistics
import subprocess
import sys

# benchmark filter, kernel name (regex), counters
CASES = [
    ("^Stream/read/bytes_per_thread:16/unroll:4/blocks_per_sm:8/MiB:2048/", "^stream$",
     ["l2_read_bytes", "dram_read_bytes", "inst_executed"]),
    ("^Stream/copy/bytes_per_thread:16/unroll:4/blocks_per_sm:8/MiB:2048/", "^stream$",
     ["l2_read_bytes", "l2_write_bytes", "dram_read_bytes", "dram_write_bytes", "inst_executed"]),
    ("^StridedCopy/Gather/stride:8/", "strided_copy",
     ["l2_read_bytes", "dram_read_bytes", "global_load_sectors", "global_load_requests", "inst_executed"]),
    ("^SharedBankConflict/Stride/bytes:4/stride:4/", "shared_pattern",
     ["shared_ld_bank_conflicts", "shared_ld_wavefronts", "shared_wavefronts", "inst_executed"]),
    # The tensor pipe, one warp-level and one warpgroup-level row (neither picked the counters).
    ("^TensorCore/mma_sync_f16_f32/chains:4/warps:8/operands:1/", "mma_sync_loop",
     ["tensor_inst_executed", "tensor_ops_f16", "inst_executed"]),
    ("^TensorCore/wgmma_e4m3_f32_ss/n:256/warpgroups:2/operands:1/", "wgmma_loop",
     ["tensor_inst_executed", "tensor_ops_fp8", "inst_executed"]),
]


# Counters that depend on what L2 held before the launch: compared, not required to agree, under same-state.
STATE_DEPENDENT = {"dram_write_bytes"}


def counter_table(gpubench):
    """{counter: (Perfworks metric, scale)} for the counters read straight from one CUPTI metric."""
    out = subprocess.run([gpubench, "--gpubench_list_counters=json"], check=True, capture_output=True, text=True).stdout
    table = {}
    for entry in json.loads(out):
        source = re.fullmatch(r"CUPTI (\S+)(?: x (\S+))?", entry.get("source", ""))
        if source:
            table[entry["name"]] = (source.group(1), float(source.group(2) or 1.0))
    return table


def gpubench_counters(gpubench, bench_filter, counters, json_path):
    subprocess.run([gpubench, f"--benchmark_filter={bench_filter}", f"--gpubench_counters={','.join(counters)}",
                    f"--benchmark_out={json_path}", "--benchmark_out_format=json"], check=True,
                   stdout=subprocess.DEVNULL)
    with open(json_path) as f:
        rows = [r for r in json.load(f)["benchmarks"] if r.get("run_type") != "aggregate"]
    return {name: rows[0][name] for name in counters if name in rows[0]}


def ncu_metrics(ncu, gpubench, bench_filter, kernel, metrics, protocol, replay):
    cache = ["--cache-control", "none", "--replay-mode", replay] if protocol == "same-state" else []
    cold = ["--gpubench_cold_l2"] if protocol == "same-state" else []
    command = [ncu, "--clock-control", "none", *cache, "--print-units", "base", "--csv", "--kernel-name",
               f"regex:{kernel}", "--launch-count", "1", "--metrics", ",".join(metrics), gpubench,
               f"--benchmark_filter={bench_filter}", "--gpubench_counters=none", *cold]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    start = out.find('"ID"')
    values = {}
    for row in csv.DictReader(io.StringIO(out[start:])):
        values[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gpubench", required=True)
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--tolerance", type=float, default=0.01)
    parser.add_argument("--scratch", default="ncu_compare.json")
    parser.add_argument("--protocol", choices=["ncu-flush", "same-state", "both"], default="both")
    parser.add_argument("--replay", choices=["kernel", "application"], default="kernel",
                        help="ncu's --replay-mode under same-state (application: no memory save/restore around the launch)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each tool this many times per case and compare medians (shows the spread)")
    parser.add_argument("--only", help="compare the cases whose benchmark filter matches this regex")
    args = parser.parse_args()

    table = counter_table(args.gpubench)
    cases = [case for case in CASES if not args.only or re.search(args.only, case[0])]
    if not cases:
        print(f"compare_ncu: --only {args.only!r} matches none of the cases ({', '.join(c[0] for c in CASES)})",
              file=sys.stderr)
        return 2
    failures = 0
    protocols = ["ncu-flush", "same-state"] if args.protocol == "both" else [args.protocol]
    print(f"{'protocol':11} {'benchmark':36} {'counter':24} {'gpubench (CUPTI)':>17} {'ncu':>17} {'rel diff':>9}"
          f"{'  spread (gpubench, ncu)' if args.repeat > 1 else ''}")
    for protocol, (bench_filter, kernel, counters) in [(p, case) for p in protocols for case in cases]:
        metrics = [table[c][0] for c in counters]
        ours_runs, theirs_runs = [], []
        for _ in range(args.repeat):
            ours_runs.append(gpubench_counters(args.gpubench, bench_filter, counters, args.scratch))
            theirs_runs.append(ncu_metrics(args.ncu, args.gpubench, bench_filter, kernel, metrics, protocol, args.replay))
        for counter in counters:
            metric, scale = table[counter]
            ours = [run[counter] for run in ours_runs if counter in run]
            theirs = [run[metric] * scale for run in theirs_runs if metric in run]
            if len(ours) < args.repeat or len(theirs) < args.repeat:
                print(f"{protocol:11} {bench_filter:36} {counter:24} missing (gpubench: {len(ours)}, ncu: {len(theirs)} "
                      f"of {args.repeat} runs)")
                failures += 1
                continue
            ours_value, ncu_value = statistics.median(ours), statistics.median(theirs)
            diff = abs(ours_value - ncu_value) / max(abs(ncu_value), 1.0)
            ok = diff <= args.tolerance
            excused = not ok and protocol == "same-state" and counter in STATE_DEPENDENT
            failures += not ok and not excused
            verdict = "" if ok else "  (differs: ncu's own set-up runs after the scrub)" if excused else "  MISMATCH"
            spread = f"  {relative_spread(ours):6.2%} {relative_spread(theirs):6.2%}" if args.repeat > 1 else ""
            print(f"{protocol:11} {bench_filter:36} {counter:24} {ours_value:17.0f} {ncu_value:17.0f} {diff:9.2%}"
                  f"{spread}{verdict}")
    print(f"compare_ncu: {'all within' if not failures else f'{failures} outside'} {args.tolerance:.0%}"
          f"{f' (medians of {args.repeat} runs of each tool)' if args.repeat > 1 else ''}")
    return 1 if failures else 0


def relative_spread(values):
    middle = statistics.median(values)
    return (max(values) - min(values)) / max(abs(middle), 1.0)


if __name__ == "__main__":
    sys.exit(main())
