#!/usr/bin/env python3
"""Cross-check gpubench's CUPTI counters against Nsight Compute on the same kernels.

For each case, gpubench runs one benchmark with the case's counters (its CUPTI pass: L2 emptied,
then one launch), and ncu profiles the first launch of the same kernel in the same benchmark
(--clock-control none, --print-units base) for the same Perfworks metrics. Two cache protocols:

  ncu-flush  ncu's default --cache-control all: ncu flushes the caches its own way before the launch.
  same-state gpubench --gpubench_cold_l2 empties L2 with its own scrub before the launch and ncu runs
             with --cache-control none, so both tools count the same launch from the same L2 state.

Write-back traffic (dram_write_bytes) depends on what L2 held before the launch, so only the
same-state protocol can demand agreement for it. Prints a table; exits 1 if any pair differs by more
than --tolerance (relative) under the protocols given by --protocol."""
import argparse
import csv
import io
import json
import subprocess
import sys

# benchmark filter, kernel name (regex), counters
CASES = [
    ("^StreamCopy/Copy/MiB:256/", "stream_copy",
     ["l2_read_bytes", "l2_write_bytes", "dram_read_bytes", "dram_write_bytes", "inst_executed"]),
    ("^StridedCopy/Gather/stride:8/", "strided_copy",
     ["l2_read_bytes", "dram_read_bytes", "global_load_sectors", "global_load_requests", "inst_executed"]),
    ("^SharedBankConflict/Ways/ways:4/", "shared_bank_conflict",
     ["shared_ld_bank_conflicts", "shared_st_bank_conflicts", "shared_wavefronts", "inst_executed"]),
]


# Counters that depend on what L2 held before the launch: compared, not required to agree, under ncu-flush.
STATE_DEPENDENT = {"dram_write_bytes"}


def counter_table(gpubench):
    out = subprocess.run([gpubench, "--gpubench_list_counters"], check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines()[1:]:
        parts = line.split()
        at = next(i for i, part in enumerate(parts) if "__" in part)  # Perfworks names hold "__"
        scale = float(parts[at + 2]) if parts[at + 1] == "x" else 1.0
        table[parts[0]] = (parts[at], scale)
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
    args = parser.parse_args()

    table = counter_table(args.gpubench)
    failures = 0
    protocols = ["ncu-flush", "same-state"] if args.protocol == "both" else [args.protocol]
    print(f"{'protocol':11} {'benchmark':36} {'counter':26} {'gpubench (CUPTI)':>18} {'ncu':>18} {'rel diff':>9}")
    for protocol, (bench_filter, kernel, counters) in [(p, case) for p in protocols for case in CASES]:
        ours = gpubench_counters(args.gpubench, bench_filter, counters, args.scratch)
        theirs = ncu_metrics(args.ncu, args.gpubench, bench_filter, kernel, [table[c][0] for c in counters], protocol,
                             args.replay)
        for counter in counters:
            metric, scale = table[counter]
            if counter not in ours or metric not in theirs:
                print(f"{protocol:11} {bench_filter:36} {counter:26} missing (gpubench: {counter in ours}, ncu: {metric in theirs})")
                failures += 1
                continue
            ncu_value = theirs[metric] * scale
            diff = abs(ours[counter] - ncu_value) / max(abs(ncu_value), 1.0)
            ok = diff <= args.tolerance
            excused = not ok and protocol == "ncu-flush" and counter in STATE_DEPENDENT
            failures += not ok and not excused
            verdict = "" if ok else "  (differs: L2 state differs; see same-state)" if excused else "  MISMATCH"
            print(f"{protocol:11} {bench_filter:36} {counter:26} {ours[counter]:18.0f} {ncu_value:18.0f} {diff:9.2%}"
                  f"{verdict}")
    print(f"compare_ncu: {'all within' if not failures else f'{failures} outside'} {args.tolerance:.0%}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
