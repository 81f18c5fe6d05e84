#!/usr/bin/env bash
# Temporary (#27/#28): tests, README command 1 with its card checked against the SKU's ranges, the Energy rows.
set -u
export OUT=${OUT:-$PWD/build-gpu/out}
.ci/device-run build test suite "bench:^Energy/:--gpubench_preset=full --gpubench_card=none"
GTEST_FILTER='EnergyKernels*' .ci/device-run sanitize
python3 analysis/card.py "$OUT/suite.json" --out "$OUT/suite-check" --check 2>&1 | tail -3 | tee "$OUT/check.txt"
python3 analysis/fleet.py "$OUT/suite.json" 2>&1 | tail -4
cd "$OUT" && tar czf logs.tar.gz logs suite-check.md && rm -rf logs
