#!/usr/bin/env bash
# Nsight Compute's side of writeback_probe: under --gpubench_cold_l2 gpubench runs
# scrub (read_through_l2 + discard), copy, scrub, copy, ...; ncu (no cache control, application
# replay: no memory save/restore) counts DRAM writes of each kernel in turn, so the scrub after a
# copy shows the copy's lines that were still dirty when the copy ended. Then the copy alone under
# ncu's default cache control (write back and invalidate before the kernel), the protocol
# compare_ncu.py holds gpubench to.
# Usage: writeback_ncu.sh GPUBENCH [MiB...]
set -euo pipefail
gpubench=$1; shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 2048)  # the Stream family's copy sizes (MiB per array)
# ncu --csv rows: launch ID, kernel, metric, value in MB.
print_rows='
import csv, sys
text = sys.stdin.read()
for row in csv.DictReader(text[text.find("\"ID\""):].splitlines()):
    print(row["ID"], row["Kernel Name"].split("(")[0][-20:], row["Metric Name"], float(row["Metric Value"].replace(",", "")) / 1e6, "MB")'
for mib in "${sizes[@]}"; do
  echo "== Stream/copy MiB:$mib"
  ncu --clock-control none --cache-control none --replay-mode application --print-units base --csv \
    --kernel-name "regex:^stream$|read_through_l2" --launch-count 4 \
    --metrics dram__bytes_write.sum,dram__bytes_read.sum "$gpubench" "--benchmark_filter=^Stream/copy/bytes_per_thread:16/unroll:4/blocks_per_sm:8/MiB:$mib/cold_l2:1/" \
    --gpubench_counters=none --gpubench_cold_l2 --benchmark_min_time=0.01s |
    python3 -c "$print_rows"
done
for mib in "${sizes[@]}"; do
  echo "== Stream/copy MiB:$mib, ncu --cache-control all (default), copy alone"
  ncu --clock-control none --print-units base --csv --kernel-name "regex:^stream$" --launch-count 1 \
    --metrics dram__bytes_write.sum,dram__bytes_read.sum "$gpubench" "--benchmark_filter=^Stream/copy/bytes_per_thread:16/unroll:4/blocks_per_sm:8/MiB:$mib/cold_l2:1/" \
    --gpubench_counters=none --benchmark_min_time=0.01s |
    python3 -c "$print_rows"
done
