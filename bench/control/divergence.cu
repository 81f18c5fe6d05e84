//! Warp divergence: cost of N distinct paths inside one warp, in SM cycles per path and as a
//! slowdown over the non-divergent warp measured in the same run.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "kernels/control/divergence.cuh"

#include <cstdint>

namespace gpubench {
namespace {

// 1024 rounds x 16 steps: 16384 dependent multiply-adds per path (~72k cycles), so the fixed cost
// of the 32-way dispatch (~1.1k cycles, measured) stays under 2% of one path.
constexpr int kRounds = 1024;
constexpr int kWarp = 32;

class Divergence : public GpuFixture {
 public:
  Divergence() { set_default_counters({"inst_executed", "thread_inst_executed", "branch_uniformity"}); }

 protected:
  // Allocated on first use: fixtures are built at registration, before any GPU is chosen.
  std::uint32_t* out() {
    return out_.get({}, [] { return DeviceBuffer<std::uint32_t>(kWarp); }).data();
  }
  void launch_paths(cudaStream_t stream, Clocks clocks, int paths) {
    kernels::divergence<<<1, kWarp, 0, stream>>>(out(), paths, kRounds, clocks);
  }
  double baseline_cycles() {
    return untimed_cycles([&](cudaStream_t s, Clocks c) { launch_paths(s, c, 1); });
  }
  ArgCache<DeviceBuffer<std::uint32_t>> out_;
};

BENCHMARK_DEFINE_F(Divergence, Paths)(benchmark::State& state) {
  const int paths = static_cast<int>(state.range(0));
  run(state, [&](cudaStream_t s, Clocks c) { launch_paths(s, c, paths); });
  report_per(state, "path", paths);
  state.counters[counters::kSlowdown] = cycles() / baseline_cycles();
  // Lanes active per warp instruction: 32 without divergence, about 32 / paths with it.
  if (state.counters.count("inst_executed") && state.counters["inst_executed"].value > 0)
    state.counters["active_lanes_per_inst"] =
        state.counters["thread_inst_executed"].value / state.counters["inst_executed"].value;
}
BENCHMARK_REGISTER_F(Divergence, Paths)->ArgName("paths")->RangeMultiplier(2)->Range(1, 32);

BENCHMARK_DEFINE_F(Divergence, IdenticalBranches)(benchmark::State& state) {
  run(state, [&](cudaStream_t s, Clocks c) {
    kernels::divergence_identical_branches<<<1, kWarp, 0, s>>>(out(), kRounds, c);
  });
  state.counters[counters::kSlowdown] = cycles() / baseline_cycles();
}
BENCHMARK_REGISTER_F(Divergence, IdenticalBranches);

}  // namespace
}  // namespace gpubench
