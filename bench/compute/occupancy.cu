//! Register pressure vs occupancy: kernels keeping N values alive, from ~16 to past 255 registers
//! per thread (where ptxas spills). Registers -> resident blocks -> warps in flight -> the
//! bandwidth of a stream with one load in flight per warp.
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/compute/register_pressure.cuh"

#include <cstdint>
#include <utility>

namespace gpubench {
namespace {

constexpr std::size_t kStreamFloats = std::size_t{128} << 20;  // 512 MiB, far beyond L2

struct StreamBuffers {
  // `out` holds one float per thread of the largest grid: every SM full of resident threads.
  StreamBuffers() : in(kStreamFloats), out(static_cast<std::size_t>(device().sm_count) * device().max_threads_per_sm) {
    in.fill_bytes(0, stream());
  }
  DeviceBuffer<float> in;
  DeviceBuffer<float> out;
};

template <class Kernel>
int report_kernel_resources(benchmark::State& state, Kernel kernel, int block) {
  cudaFuncAttributes attributes{};
  int blocks_per_sm = 0;
  GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, 0));
  state.counters["regs_per_thread"] = attributes.numRegs;
  state.counters["spill_bytes"] = static_cast<double>(attributes.localSizeBytes);
  state.counters["blocks_per_sm"] = blocks_per_sm;
  state.counters["theoretical_occupancy"] =
      100.0 * blocks_per_sm * block / static_cast<double>(device().max_threads_per_sm);
  return blocks_per_sm;
}

template <int Live>
void live_values(benchmark::State& state) {
  static ArgCache<StreamBuffers> buffers;
  const int blocks_per_sm = report_kernel_resources(state, kernels::register_pressure<Live>, kernels::kPressureBlock);
  if (blocks_per_sm == 0) throw std::runtime_error("the kernel cannot be resident on this GPU");
  StreamBuffers& b = buffers.get({}, [] { return StreamBuffers(); });
  const int blocks = device().sm_count * blocks_per_sm;  // exactly one full wave
  run(state,
      [&](cudaStream_t s, Clocks c) {
        kernels::register_pressure<Live>
            <<<blocks, kernels::kPressureBlock, 0, s>>>(b.in.data(), kStreamFloats, b.out.data(), c);
      },
      {{"achieved_occupancy"}});
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(kStreamFloats * sizeof(float)));
}

// The seed notebook's lean and fat kernels: registers and theoretical occupancy at 256 threads.
template <class Kernel>
void seed_kernel(benchmark::State& state, Kernel kernel) {
  static ArgCache<DeviceBuffer<float>> out_cache;
  report_kernel_resources(state, kernel, 256);
  float* out = out_cache.get({}, [] { return DeviceBuffer<float>(256); }).data();
  run(state, [&](cudaStream_t s, Clocks c) { kernel<<<1, 256, 0, s>>>(out, 256, c); });
}

template <int... Live>
void register_live_sweep(const Family& family, std::integer_sequence<int, Live...>) {
  // One registration per kernel (each its own template), all named Occupancy with the argument live.
  (add_point(family.gpu("Occupancy", {"live"}, live_values<Live>), {{"live", Live}}), ...);
}

GPUBENCH_FAMILY(Occupancy) {
  family.short_launches(
      family.gpu("OccupancySeed/Lean", {}, [](benchmark::State& state) { seed_kernel(state, kernels::seed_lean); }));
  family.short_launches(
      family.gpu("OccupancySeed/Fat", {}, [](benchmark::State& state) { seed_kernel(state, kernels::seed_fat); }));
  if (family.preset() != Preset::kFull) {  // lean, the last without spills, past 255 (spills)
    register_live_sweep(family, std::integer_sequence<int, 1, 128, 240, 288>{});
  } else {
    register_live_sweep(family,
                        std::integer_sequence<int, 1, 16, 32, 48, 56, 64, 96, 128, 160, 192, 224, 240, 256, 288>{});
  }
}

GPUBENCH_COUNTERS(Occupancy, {"regs_per_thread", "registers", CounterKind::kFixed, "registers ptxas gave each thread"},
                  {"spill_bytes", "bytes", CounterKind::kFixed, "local memory per thread (spills and stack)"},
                  {"blocks_per_sm", "blocks", CounterKind::kFixed, "blocks an SM can hold at once (occupancy API)"},
                  {"theoretical_occupancy", "%", CounterKind::kFixed,
                   "resident threads per SM over the SM's maximum, from blocks_per_sm"});

}  // namespace
}  // namespace gpubench
