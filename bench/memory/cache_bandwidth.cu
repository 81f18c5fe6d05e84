//! Read bandwidth by working set, the bandwidth counterpart of the latency staircase: two blocks
//! per SM each re-read their own slice many times, so L1, L2 and DRAM each show as a plateau in
//! TB/s and bytes per clock per SM. `read` caches in L1 (ld.ca); `read_cg` bypasses it (ld.cg),
//! so its plateau is L2 from the smallest set up to L2's capacity.
#include "bench/memory/bandwidth.h"
#include "common/arg_cache.h"
#include "common/device_memory.h"
#include "common/counter_catalog.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/cache_bandwidth.cuh"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {
namespace {

constexpr int kBlocksPerSm = 2;
constexpr double kBytesPerLaunch = 8.0 * (1 << 30);  // long enough that launch overhead is noise at L1 rates

struct CacheBuffers {
  CacheBuffers(std::size_t vectors, std::size_t threads) : data(vectors), partial(threads) {
    data.fill_bytes(0x3C, stream());
  }
  DeviceBuffer<float4> data;
  DeviceBuffer<float> partial;
};

template <bool kBypassL1>
void read_rows(benchmark::State& state) {
  static ArgCache<CacheBuffers> cache;
  const std::int64_t kib_per_sm = arg(state, "KiB_per_sm");
  const int blocks = device().sm_count * kBlocksPerSm;
  const unsigned slice_vectors = static_cast<unsigned>(kib_per_sm * 1024 / kBlocksPerSm / sizeof(float4));
  const std::size_t threads = static_cast<std::size_t>(blocks) * kernels::kCacheReadThreads;
  CacheBuffers& b = cache.get({kib_per_sm}, [&] { return CacheBuffers(std::size_t{slice_vectors} * blocks, threads); });
  const double working_set = static_cast<double>(b.data.bytes());
  const int reps = std::max(1, static_cast<int>(kBytesPerLaunch / working_set));
  RunOptions options{{"l1_hit_rate", "l2_hit_rate", "dram_read_bytes", "l2_read_bytes"}};
  options.profile_warm = true;  // counters of the state the timed launches saw (each re-reads its set anyway)
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernels::cache_read<kBypassL1>
        <<<blocks, kernels::kCacheReadThreads, 0, s>>>(b.data.data(), slice_vectors, reps, b.partial.data(), c);
  }, options);
  report_bandwidth(state, result, working_set * reps, false);  // L1 and L2 rows beat any DRAM peak
  state.counters["working_set_bytes"] = working_set;
  state.counters["reps"] = reps;
}

GPUBENCH_FAMILY(CacheBandwidth) {
  // KiB per SM: L1 holds about 200 KiB of an H100 SM's 256 KiB; L2 (50 MiB) is 384 KiB per SM of
  // its 132; 2 MiB per SM is over 5x that L2.
  const std::vector<std::int64_t> sizes = {16, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 512, 768, 1024, 1536, 2048};
  auto* cached = family.gpu("CacheBandwidth/read", {"KiB_per_sm"}, read_rows<false>);
  for (std::int64_t kib : family.pick<std::vector<std::int64_t>>({16, 64, 128, 256, 2048}, sizes)) cached->Arg(kib);
  auto* bypass = family.gpu("CacheBandwidth/read_cg", {"KiB_per_sm"}, read_rows<true>);
  for (std::int64_t kib : family.pick<std::vector<std::int64_t>>({16, 128, 2048}, sizes)) bypass->Arg(kib);
}

GPUBENCH_COUNTERS(CacheBandwidth,
                  {"reps", "passes", CounterKind::kFixed, "times each block re-reads its slice per launch"});

}  // namespace
}  // namespace gpubench
