//! Shared-memory bank conflicts: 32 warps of one block whose lanes read 4-, 8- or 16-byte elements
//! `stride` elements apart, and a warp reading a column of a 32 x 32 tile stored naively, padded or
//! swizzled. Cycles per warp-level load against the wavefronts bench/shared/bank_model predicts, and
//! CUPTI's count of the wavefronts the loads took, which must equal the prediction.
#include "bench/shared/bank_model.h"
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/shared/bank_conflict.cuh"

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {
namespace {

constexpr int kLoads = 1024;  // per thread
constexpr int kWarps = 32;    // enough to keep one SM's shared-memory pipe busy
constexpr int kThreads = kWarps * kWarpSize;

// Lanes' byte addresses -> the element indices the kernel takes.
kernels::LaneElements elements_of(const std::vector<std::uint32_t>& addresses, int access_bytes) {
  kernels::LaneElements lanes{};
  for (int lane = 0; lane < kWarpSize; ++lane)
    lanes.index[lane] =
        static_cast<int>(addresses[static_cast<std::size_t>(lane)] / static_cast<std::uint32_t>(access_bytes));
  return lanes;
}

void measure(benchmark::State& state, const std::vector<std::uint32_t>& addresses, int access_bytes) {
  static ArgCache<DeviceBuffer<float>> out_cache;
  float* out = out_cache.get({}, [] { return DeviceBuffer<float>(kThreads); }).data();
  const kernels::LaneElements lanes = elements_of(addresses, access_bytes);
  const RunResult result = dispatch<4, 8, 16>(access_bytes, [&](auto width) {
    using T = std::conditional_t<width() == 4, float, std::conditional_t<width() == 8, float2, float4>>;
    return run(
        state,
        [&](cudaStream_t s, Clocks c) { kernels::shared_pattern<T><<<1, kThreads, 0, s>>>(out, lanes, kLoads, c); },
        {{"shared_ld_wavefronts", "shared_ld_bank_conflicts", "inst_executed", "conflicts_per_load"}});
  });
  const double warp_loads = static_cast<double>(kLoads) * kWarps;
  report_per(state, result, "load", warp_loads);  // per warp-level load instruction
  const int predicted = shared_wavefronts(addresses, access_bytes);
  const int ideal = ideal_shared_wavefronts(access_bytes);
  state.counters["predicted_wavefronts"] = predicted;
  state.counters["predicted_degree"] = static_cast<double>(predicted) / ideal;
  if (const auto measured = result.counter("shared_ld_wavefronts"))
    state.counters["wavefronts_per_load"] = *measured / warp_loads;
}

void stride_rows(benchmark::State& state) {
  const int access_bytes = static_cast<int>(arg(state, "bytes"));
  const int stride = static_cast<int>(arg(state, "stride"));
  if (stride < 1 || stride > kWarpSize) throw std::invalid_argument("stride: 1 to 32 elements");
  std::vector<std::uint32_t> addresses(kWarpSize);
  for (int lane = 0; lane < kWarpSize; ++lane)
    addresses[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(lane * stride * access_bytes);
  measure(state, addresses, access_bytes);
}

void tile_rows(benchmark::State& state, TileLayout layout) {
  measure(state, column_read_addresses(layout, static_cast<int>(arg(state, "column"))), 4);
}

GPUBENCH_FAMILY(SharedBankConflict) {
  auto* strides = family.gpu("SharedBankConflict/Stride", {"bytes", "stride"}, stride_rows);
  std::vector<std::int64_t> every_stride;
  for (std::int64_t s = 1; s <= kWarpSize; ++s) every_stride.push_back(s);
  const auto word_strides = family.pick<std::vector<std::int64_t>>({1, 2, 3, 4, 8, 16, 32}, every_stride);
  const auto wide_strides = family.pick<std::vector<std::int64_t>>({1, 2, 4}, {1, 2, 3, 4, 5, 8, 16, 32});
  for (std::int64_t s : word_strides) add_point(strides, {{"bytes", 4}, {"stride", s}});
  for (std::int64_t bytes : {8, 16})
    for (std::int64_t s : wide_strides) add_point(strides, {{"bytes", bytes}, {"stride", s}});
  // A transpose's column read: lane r reads row r of one column.
  const struct {
    const char* name;
    TileLayout layout;
  } layouts[] = {{"naive", TileLayout::kNaive}, {"padded", TileLayout::kPadded}, {"swizzled", TileLayout::kSwizzled}};
  for (const auto& l : layouts)
    add_point(string_axis(family.gpu(std::string("SharedBankConflict/Transpose/") + l.name, {"column"},
                                     [layout = l.layout](benchmark::State& state) { tile_rows(state, layout); }),
                          "layout", l.name),
              {{"column", 5}});
}

GPUBENCH_COUNTERS(SharedBankConflict,
                  {"predicted_degree", "ways", CounterKind::kFixed,
                   "the bank model's conflict degree of the access pattern (most words one bank serves)"},
                  {"predicted_wavefronts", "wavefronts", CounterKind::kFixed,
                   "wavefronts per warp load the bank model predicts"},
                  {"wavefronts_per_load", "wavefronts", CounterKind::kFixed,
                   "CUPTI's shared-memory load wavefronts per warp load instruction"});

}  // namespace
}  // namespace gpubench
