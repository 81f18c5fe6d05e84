#!/usr/bin/env bash
# Temporary (#27): the Energy rows on the H200.
set -u
export OUT=${OUT:-$PWD/build-gpu/out}
.ci/device-run build "bench:^Energy/:--gpubench_preset=full --gpubench_card=none"
cd "$OUT" && tar czf logs.tar.gz logs && rm -rf logs
