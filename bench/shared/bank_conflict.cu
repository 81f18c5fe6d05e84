//! Shared-memory bank conflicts: 32 warps of one block whose lanes read words `ways` apart. Cycles
//! per warp-level load and the counted conflicts grow with the ways; 1 way is conflict-free.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/shared/bank_conflict.cuh"

namespace gpubench {
namespace {

constexpr int kLoads = 1024;   // per thread
constexpr int kWarps = 32;     // enough to keep one SM's shared-memory pipe busy
constexpr int kThreads = kWarps * kWarpSize;

void ways(benchmark::State& state) {
  static ArgCache<DeviceBuffer<float>> out_cache;
  const int ways = static_cast<int>(state.range(0));
  float* out = out_cache.get({}, [] { return DeviceBuffer<float>(kThreads); }).data();
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks c) { kernels::shared_bank_conflict<<<1, kThreads, 0, s>>>(out, ways, kLoads, c); },
      {{"shared_ld_bank_conflicts", "shared_st_bank_conflicts", "shared_wavefronts", "inst_executed",
        "conflicts_per_load"}});
  report_per(state, result, "load", static_cast<double>(kLoads) * kWarps);  // per warp-level load instruction
}

GPUBENCH_FAMILY(SharedBankConflict) {
  family.gpu("SharedBankConflict/Ways", {"ways"}, ways)->RangeMultiplier(2)->Range(1, kWarpSize);
}

}  // namespace
}  // namespace gpubench
