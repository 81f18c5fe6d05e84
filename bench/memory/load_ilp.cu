//! The load juggler (seed 001): one warp, then a few, streaming from DRAM with 1 to 16 independent
//! loads in flight per thread, and apart from that, one load per step of 4, 8 or 16 bytes. Little's
//! law turns bytes in flight and bandwidth into the latency each load waited (compare the pointer
//! chase's DRAM latency).
#include "bench/memory/bandwidth.h"
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/memory/load_ilp.cuh"

#include <cstdint>
#include <vector>

namespace gpubench {
namespace {

constexpr std::size_t kBytesPerWarp = std::size_t{512} << 10;
constexpr int kMaxWarps = 32;

DeviceBuffer<unsigned>& input() {
  static ArgCache<DeviceBuffer<unsigned>> cache;
  return cache.get({}, [] {
    DeviceBuffer<unsigned> words(kBytesPerWarp * kMaxWarps / sizeof(unsigned));
    words.fill_bytes(0x01, stream());
    return words;
  });
}

DeviceBuffer<unsigned>& sums() {
  static ArgCache<DeviceBuffer<unsigned>> cache;
  return cache.get({}, [] { return DeviceBuffer<unsigned>(kMaxWarps * kWarpSize); });
}

template <int kLoads, class T>
void juggle(benchmark::State& state, int warps) {
  if (warps < 1 || warps > kMaxWarps) throw std::invalid_argument("warps: 1 to 32");
  const T* in = reinterpret_cast<const T*>(input().data());
  unsigned* out = sums().data();
  const std::size_t per_warp = kBytesPerWarp / sizeof(T);
  RunOptions options{{"dram_read_bytes", "l2_read_bytes"}};
  options.cold_l2 = true;  // every launch's loads come from DRAM
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernels::load_ilp<kLoads, T><<<1, warps * kWarpSize, 0, s>>>(in, per_warp, out, c);
      },
      options);
  const double bytes = static_cast<double>(kBytesPerWarp) * warps;
  report_bandwidth(state, result, bytes, true);
  const double in_flight = static_cast<double>(warps) * kWarpSize * sizeof(T) * kLoads;
  state.counters["loads_in_flight"] = static_cast<double>(warps) * kWarpSize * kLoads;
  state.counters["bytes_in_flight"] = in_flight;
  // Little's law over the kernel's own span: latency = bytes in flight / bandwidth.
  state.counters["littles_law_ns"] = in_flight * result.ns / bytes;
  state.counters["littles_law_cycles"] = in_flight * result.cycles / bytes;
}

void scalar_rows(benchmark::State& state) {
  dispatch<1, 2, 4, 8, 16>(static_cast<int>(arg(state, "loads")), [&](auto loads) {
    juggle<decltype(loads)::value, unsigned>(state, static_cast<int>(arg(state, "warps")));
  });
}

void vector_rows(benchmark::State& state) {
  dispatch<4, 8, 16>(static_cast<int>(arg(state, "bytes_per_load")), [&](auto width) {
    using T = std::conditional_t<width() == 4, unsigned, std::conditional_t<width() == 8, uint2, uint4>>;
    juggle<1, T>(state, static_cast<int>(arg(state, "warps")));
  });
}

GPUBENCH_FAMILY(LoadILP) {
  const auto warps = family.pick<std::vector<std::int64_t>>({1}, {1, 2, 4, 8, 32});
  auto* scalar = family.gpu("LoadILP/scalar", {"loads", "warps"}, scalar_rows);
  auto* vector = family.gpu("LoadILP/vector", {"bytes_per_load", "warps"}, vector_rows);
  for (std::int64_t w : warps) {
    for (std::int64_t loads : {1, 2, 4, 8, 16}) add_point(scalar, {{"loads", loads}, {"warps", w}});
    for (std::int64_t width : {4, 8, 16}) add_point(vector, {{"bytes_per_load", width}, {"warps", w}});
  }
}

GPUBENCH_COUNTERS(LoadILP,
                  {"littles_law_ns", "ns", CounterKind::kMeasured,
                   "bytes in flight over bytes per second: the latency each load saw, by Little's law"},
                  {"littles_law_cycles", "cycles", CounterKind::kMeasured, "littles_law_ns at the measured SM clock"});

}  // namespace
}  // namespace gpubench
