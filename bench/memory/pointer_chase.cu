//! Memory latency by pointer chasing: one thread, one dependent load at a time through a shuffled
//! chain over `bytes`, one node every `stride` bytes: cycles per load for each working-set size.
//! NOT YET VALIDATED ON A GPU (issue 4 is open): numbers from this family are unconfirmed.
#include "common/arg_cache.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "common/pointer_chain.h"
#include "kernels/memory/pointer_chase.cuh"

#include <string>

namespace gpubench {
namespace {

constexpr std::uint32_t kTimedLoads = 4096;
constexpr std::uint32_t kWarmupLoads = 1024;

struct DeviceChain {
  explicit DeviceChain(const ChaseChain& host)
      : nodes(host.nodes), words(host.words.size()), position(1) {
    words.upload(host.words);
    position.upload({0u});
  }
  std::size_t nodes;
  DeviceBuffer<std::uint32_t> words;
  DeviceBuffer<std::uint32_t> position;  // where the walk continues from, launch after launch
};

// One cache for all load paths: they run the same chains, built once per (bytes, stride).
ArgCache<DeviceChain>& device_chains() {
  static ArgCache<DeviceChain> cache;
  return cache;
}

template <kernels::LoadPath Path>
class PointerChase : public GpuFixture {
 public:
  explicit PointerChase(const char* path_name) : GpuFixture(std::string("PointerChase/") + path_name) {
    set_default_counters({"l1_hit_rate", "l2_hit_rate", "dram_read_bytes"});
  }

 protected:
  void BenchmarkCase(benchmark::State& state) override {
    const std::size_t bytes = static_cast<std::size_t>(state.range(0));
    const std::size_t stride = static_cast<std::size_t>(state.range(1));
    std::size_t free_bytes = 0, total_bytes = 0;
    GPUBENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes)
      throw std::runtime_error("working set of " + std::to_string(bytes) + " bytes exceeds the " +
                               std::to_string(free_bytes) + " bytes of free device memory");
    DeviceChain& chain = device_chains().get({state.range(0), state.range(1)},
                                             [&] { return DeviceChain(make_chase_chain(bytes, stride, 1)); });
    run(state, [&](cudaStream_t s, Clocks c) {
      kernels::pointer_chase<Path><<<1, 1, 0, s>>>(chain.words.data(), chain.position.data(), kWarmupLoads,
                                                   kTimedLoads, c);
    });
    report_per(state, "load", kTimedLoads);
    state.counters["working_set_bytes"] = static_cast<double>(bytes);
    state.counters["stride_bytes"] = static_cast<double>(stride);
  }
};

void working_sets(benchmark::internal::Benchmark* b, std::int64_t stride) {
  for (std::int64_t bytes = 4 << 10; bytes <= (std::int64_t{1} << 30); bytes *= 2) {
    b->Args({bytes, stride});
    if (bytes < (std::int64_t{1} << 30)) b->Args({bytes + bytes / 2, stride});  // resolution between steps
  }
}

const bool registered = [] {
  for (auto* b : {register_case<PointerChase<kernels::LoadPath::kCached>>("cached"),
                  register_case<PointerChase<kernels::LoadPath::kL2Only>>("l2_only"),
                  register_case<PointerChase<kernels::LoadPath::kVolatile>>("volatile")}) {
    b->ArgNames({"bytes", "stride"});
    working_sets(b, 128);
  }
  return true;
}();

}  // namespace
}  // namespace gpubench
