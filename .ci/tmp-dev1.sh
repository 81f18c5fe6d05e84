#!/usr/bin/env bash
# Temporary (#27): power on long and quick rows (instantaneous readings against the energy counter), README command 1.
set -u
export OUT=${OUT:-$PWD/build-gpu/out}
.ci/device-run \
  "bench:^(TensorCore/wgmma_f16_f32_ss/n.256/warpgroups.2/|Stream/read/bytes_per_thread.16/unroll.4/blocks_per_sm.8/MiB.2048|PointerChase/direct/bytes.16384/):--benchmark_min_time=1s --gpubench_card=none" \
  "bench:^(Divergence|TensorCore/wgmma_f16_f32_ss|Stream/read)/:--gpubench_card=none" suite
cd "$OUT" && tar czf logs.tar.gz logs && rm -rf logs
