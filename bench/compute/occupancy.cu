//! Register pressure vs occupancy: kernels keeping N values alive, from ~16 to past 255 registers
//! per thread (where ptxas spills). Registers -> resident blocks -> warps in flight -> the
//! bandwidth of a stream with one load in flight per warp.
#include "common/arg_cache.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "common/gpu_fixture.h"
#include "kernels/compute/register_pressure.cuh"

#include <cstdint>

namespace gpubench {
namespace {

constexpr std::size_t kStreamFloats = std::size_t{128} << 20;  // 512 MiB, far beyond L2

struct StreamBuffers {
  StreamBuffers() : in(kStreamFloats), out(std::size_t{132} * 32 * 2048) { in.fill_bytes(0); }
  DeviceBuffer<float> in;
  DeviceBuffer<float> out;  // one float per thread of the largest grid (up to 2048 threads per SM)
};

template <class Kernel>
void report_kernel_resources(benchmark::State& state, Kernel kernel, int block, const DeviceInfo& device,
                             int* blocks_per_sm) {
  cudaFuncAttributes attributes{};
  GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, block, 0));
  state.counters["regs_per_thread"] = attributes.numRegs;
  state.counters["spill_bytes"] = static_cast<double>(attributes.localSizeBytes);
  state.counters["blocks_per_sm"] = *blocks_per_sm;
  state.counters["theoretical_occupancy"] =
      100.0 * *blocks_per_sm * block / static_cast<double>(device.max_threads_per_sm);
}

template <int Live>
class Occupancy : public GpuFixture {
 public:
  Occupancy() : GpuFixture("Occupancy/live:" + std::to_string(Live)) { set_default_counters({"achieved_occupancy"}); }

 protected:
  void BenchmarkCase(benchmark::State& state) override {
    const DeviceInfo& device = gpu().device();
    int blocks_per_sm = 0;
    report_kernel_resources(state, kernels::register_pressure<Live>, kernels::kPressureBlock, device, &blocks_per_sm);
    if (blocks_per_sm == 0) throw std::runtime_error("the kernel cannot be resident on this GPU");
    StreamBuffers& b = buffers_.get({}, [] { return StreamBuffers(); });
    const int blocks = device.sm_count * blocks_per_sm;  // exactly one full wave
    run(state, [&](cudaStream_t s, Clocks c) {
      kernels::register_pressure<Live><<<blocks, kernels::kPressureBlock, 0, s>>>(b.in.data(), kStreamFloats,
                                                                                   b.out.data(), c);
    });
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(kStreamFloats * sizeof(float)));
    state.counters["live_values"] = Live;
  }

 private:
  ArgCache<StreamBuffers> buffers_;
};

template <int... Live>
void register_occupancy_sweep(std::integer_sequence<int, Live...>) {
  (register_case<Occupancy<Live>>(), ...);
}

// The seed notebook's lean and fat kernels: registers and theoretical occupancy at 256 threads.
class OccupancySeed : public GpuFixture {
 protected:
  template <class Kernel>
  void measure(benchmark::State& state, Kernel kernel) {
    int blocks_per_sm = 0;
    report_kernel_resources(state, kernel, 256, gpu().device(), &blocks_per_sm);
    float* out = out_.get({}, [] { return DeviceBuffer<float>(256); }).data();
    run(state, [&](cudaStream_t s, Clocks c) { kernel<<<1, 256, 0, s>>>(out, 256, c); });
  }
  ArgCache<DeviceBuffer<float>> out_;
};

BENCHMARK_DEFINE_F(OccupancySeed, Lean)(benchmark::State& state) { measure(state, kernels::seed_lean); }
BENCHMARK_DEFINE_F(OccupancySeed, Fat)(benchmark::State& state) { measure(state, kernels::seed_fat); }
BENCHMARK_REGISTER_F(OccupancySeed, Lean);
BENCHMARK_REGISTER_F(OccupancySeed, Fat);

const bool registered = [] {
  register_occupancy_sweep(std::integer_sequence<int, 1, 16, 32, 48, 56, 64, 96, 128, 160, 192, 224, 240, 256, 288>{});
  return true;
}();

}  // namespace
}  // namespace gpubench
