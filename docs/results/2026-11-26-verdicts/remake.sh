#!/usr/bin/env bash
# The limits and the noise model shipped in analysis/ (reference_ranges.json: sm_90, H100 SXM5, H200;
# noise_model.json), remade from the committed runs. Run from the repository's root.
set -euo pipefail
R=docs/results/2026-11-26-verdicts/runs; V=docs/results/2026-11-25-verdicts/runs; C=docs/results/2026-11-25-checks/runs
H100="$V/h100a-1.json.gz $V/h100a-2.json.gz $V/h100b-1.json.gz $V/h100b-2.json.gz $V/h100c-1.json.gz $V/h100d-1.json.gz
      $V/h100d-2.json.gz $C/h100e-1.json.gz $C/h100e-2.json.gz $C/h100f-1.json.gz $R/h100a-quick-1.json.gz
      $R/h100a-quick-2.json.gz $R/h100a-check-1.json.gz $R/h100a-check-2.json.gz $C/h100g-check-plain.json.gz
      $C/h100g-check-again.json.gz $C/h100h-check-plain.json.gz $C/h100i-check-plain.json.gz"
H200="$R/h200a-quick-1.json.gz $R/h200a-quick-2.json.gz $R/h200a-check-1.json.gz $R/h200a-check-2.json.gz
      $R/x2a-alone-0.json.gz $R/x2a-alone-1.json.gz $R/x2a-node-plain.json.gz test/fixtures/h200-check.json.gz"
# shellcheck disable=SC2086
python3 analysis/make_ranges.py --sku h100-sxm5 --name "H100 SXM5 80GB HBM3" --names "NVIDIA H100 80GB HBM3" \
  --source "18 runs on 10 H100 80GB HBM3 boards: README command 1's preset (12) and the check preset (6), 2026-11-25 and 2026-11-26 (docs/results/2026-11-25-verdicts, 2026-11-25-checks, 2026-11-26-verdicts)" $H100
# shellcheck disable=SC2086
python3 analysis/make_ranges.py --sku h200 --name "H200 141GB HBM3e" --names "NVIDIA H200" \
  --source "8 runs on 4 H200 boards: README command 1's preset (2) and the check preset (6, one of a node of two), 2026-11-26 (docs/results/2026-11-26-verdicts; test/fixtures/h200-check.json.gz)" $H200
# shellcheck disable=SC2086
python3 analysis/make_ranges.py --arch sm_90 --name "sm_90 (Hopper: H100, H200, H20, GH200)" \
  --source "26 runs on 10 H100 80GB HBM3 and 4 H200 boards (README command 1's preset and the check preset; docs/results/2026-11-25-verdicts, 2026-11-25-checks, 2026-11-26-verdicts); links: the node run of two H200s and the two-H200 suite of test/fixtures" $H100 $H200 --links test/fixtures/h200x2-suite-all.json
# Pairs of identical code only: 722e5b0bbb87 and 53ef51a72a50 differ in no measurement (a busy GPU's early verdict,
# the Peer chase added to the check preset).
python3 analysis/make_noise.py --same-code 722e5b0bbb87=53ef51a72a50 \
  --source "2026-11-26: README command 1's preset and the check preset back to back on H200 b1eac696 and H100 60a34e66; the check preset on H200s 309057df and 674301d8 alone and as a node (docs/results/2026-11-26-verdicts); 7 runs of README command 1's preset at commit ca0bd2c on 4 H100 boards (docs/results/2026-11-25-verdicts)" \
  $R/h200a-quick-1.json.gz $R/h200a-quick-2.json.gz $R/h200a-check-1.json.gz $R/h200a-check-2.json.gz \
  $R/x2a-alone-0.json.gz $R/x2a-alone-1.json.gz $R/x2a-node-plain.json.gz $R/h100a-quick-1.json.gz \
  $R/h100a-quick-2.json.gz $R/h100a-check-1.json.gz $R/h100a-check-2.json.gz $V/h100a-1.json.gz $V/h100a-2.json.gz \
  $V/h100b-1.json.gz $V/h100b-2.json.gz $V/h100c-1.json.gz $V/h100d-1.json.gz $V/h100d-2.json.gz
