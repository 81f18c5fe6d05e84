//! Shared-memory bank conflicts: 32 warps of one block whose lanes read words `ways` apart. Cycles
//! per warp-level load and the counted conflicts grow with the ways; 1 way is conflict-free.
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "kernels/shared/bank_conflict.cuh"

namespace gpubench {
namespace {

constexpr int kLoads = 1024;   // per thread
constexpr int kWarps = 32;     // enough to keep one SM's shared-memory pipe busy
constexpr int kThreads = kWarps * 32;

class SharedBankConflict : public GpuFixture {
 public:
  SharedBankConflict() {
    set_default_counters({"shared_ld_bank_conflicts", "shared_st_bank_conflicts", "shared_wavefronts", "inst_executed"});
  }

 protected:
  ArgCache<DeviceBuffer<float>> out_;
};

BENCHMARK_DEFINE_F(SharedBankConflict, Ways)(benchmark::State& state) {
  const int ways = static_cast<int>(state.range(0));
  float* out = out_.get({}, [] { return DeviceBuffer<float>(kThreads); }).data();
  run(state, [&](cudaStream_t s, Clocks c) { kernels::shared_bank_conflict<<<1, kThreads, 0, s>>>(out, ways, kLoads, c); });
  const double warp_loads = static_cast<double>(kLoads) * kWarps;
  report_per(state, "load", warp_loads);  // per warp-level load instruction
  if (state.counters.count("shared_ld_bank_conflicts"))
    state.counters["conflicts_per_load"] = state.counters["shared_ld_bank_conflicts"].value / warp_loads;
}
BENCHMARK_REGISTER_F(SharedBankConflict, Ways)->ArgName("ways")->RangeMultiplier(2)->Range(1, 32);

}  // namespace
}  // namespace gpubench
