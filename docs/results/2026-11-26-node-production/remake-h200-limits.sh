#!/usr/bin/env bash
# The H200 SKU's limits in analysis/verdict/reference_ranges.json, made again from the check and quick runs of 22 H200
# boards (2026-11-26), and the same runs judged board by board by the limits of the other boards. Run from the
# repository's root.
set -euo pipefail
V=docs/results/2026-11-26-verdicts/raw.tar.xz/runs
P=docs/results/2026-11-26-precision/raw.tar.xz/runs
N=docs/results/2026-11-26-node-production/raw.tar.xz
H200="$V/h200a-quick-1.json $V/h200a-quick-2.json $V/h200a-check-1.json $V/h200a-check-2.json $V/x2a-alone-0.json
      $V/x2a-alone-1.json test/fixtures/h200-check.json.gz $P/h200-4f1a8ff9-check-1.json $P/h200-4f1a8ff9-check-2.json
      $P/h200-4f1a8ff9-quick-1.json $P/h200m-new-check-m-1.json $P/h200m-new-check-m-2.json $P/h200m-new-quick-m-1.json
      $N/runs/x4-alone-?.json $N/runs/x4b-alone-?.json $N/runs-turns/x4f-t-alone-?.json $N/runs-x4g/x4g-t-alone-?.json"
SOURCE="29 runs on 22 H200 boards: the check preset (24, each board alone) and README command 1's preset (5), 2026-11-26 (docs/results/2026-11-26-verdicts, 2026-11-26-precision, 2026-11-26-node-production; test/fixtures/h200-check.json.gz)"
# shellcheck disable=SC2086
python3 test/validation/sku_limits_leave_one_out.py --sku h200 --name "H200 141GB HBM3e" --names "NVIDIA H200" $H200
# shellcheck disable=SC2086
python3 analysis/tables/make_ranges.py --sku h200 --name "H200 141GB HBM3e" --names "NVIDIA H200" --source "$SOURCE" $H200
