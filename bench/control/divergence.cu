//! Warp divergence: cost of N distinct paths inside one warp, in SM cycles per path and as a
//! slowdown over the non-divergent warp measured in the same run.
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/counter_names.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/control/divergence.cuh"

#include <cstdint>

namespace gpubench {
namespace {

// 1024 rounds x 16 steps: 16384 dependent multiply-adds per path (~72k cycles), so the fixed cost
// of the 32-way dispatch (~1.1k cycles, measured) stays under 2% of one path.
constexpr int kRounds = 1024;

const RunOptions kIdenticalOptions{{"inst_executed", "thread_inst_executed", "branch_uniformity"}};
const RunOptions kPathsOptions{{"inst_executed", "thread_inst_executed", "branch_uniformity", "active_lanes_per_inst"}};

std::uint32_t* out() {
  static ArgCache<DeviceBuffer<std::uint32_t>> cache;
  return cache.get({}, [] { return DeviceBuffer<std::uint32_t>(kWarpSize); }).data();
}

Launch paths_launch(int paths) {
  return [paths](cudaStream_t s, Clocks c) { kernels::divergence<<<1, kWarpSize, 0, s>>>(out(), paths, kRounds, c); };
}

void report_slowdown(benchmark::State& state, const RunResult& result) {
  state.counters[counters::kSlowdown] = result.cycles / untimed_cycles(paths_launch(1));
}

void paths(benchmark::State& state) {
  const int paths = static_cast<int>(arg(state, "paths"));
  const RunResult result = run(state, paths_launch(paths), kPathsOptions);
  report_per(state, result, "path", paths);
  report_slowdown(state, result);
}

void identical_branches(benchmark::State& state) {
  const RunResult result = run(
      state,
      [](cudaStream_t s, Clocks c) {
        kernels::divergence_identical_branches<<<1, kWarpSize, 0, s>>>(out(), kRounds, c);
      },
      kIdenticalOptions);
  report_slowdown(state, result);
}

GPUBENCH_FAMILY(Divergence) {
  auto* rows = family.gpu("Divergence/Paths", {"paths"}, paths);
  for (std::int64_t count = 1; count <= kWarpSize; count *= 2) add_point(rows, {{"paths", count}});
  family.gpu("Divergence/IdenticalBranches", {}, identical_branches);
}

GPUBENCH_COUNTERS(Divergence,
                  {"slowdown", "x", CounterKind::kMeasured,
                   "cycles over the converged warp's (one path) measured in the same run", Better::kLower, false});

}  // namespace
}  // namespace gpubench
