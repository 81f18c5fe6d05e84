#!/usr/bin/env bash
# Temporary (#27): build, tests, the Energy rows, power on long and quick rows, sanitizers on the new kernels.
set -u
export OUT=${OUT:-$PWD/build-gpu/out}
.ci/device-run build test sass \
  "bench:^Energy/:--gpubench_preset=full --gpubench_card=none" \
  "bench:^(TensorCore/wgmma_f16_f32_ss/n:256/warpgroups:2/|Stream/read/bytes_per_thread:16/unroll:4/blocks_per_sm:8/MiB:2048|PointerChase/direct/bytes:16384/):--benchmark_min_time=1s --gpubench_card=none" \
  "bench:^(Divergence|TensorCore/wgmma_f16_f32_ss/n:256|Stream/read)/:--gpubench_card=none"
GTEST_FILTER='EnergyKernels*' .ci/device-run sanitize
grep -h "Energy/" "$OUT"/logs/bench1.log | head -40
cd "$OUT" && tar czf logs.tar.gz logs && rm -rf logs
