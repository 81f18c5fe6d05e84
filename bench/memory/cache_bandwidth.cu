//! Read bandwidth by working set, the bandwidth counterpart of the latency staircase: two blocks
//! per SM each re-read their own slice many times, so L1, L2 and DRAM each show as a plateau in
//! TB/s and bytes per clock per SM. `read` caches in L1 (ld.ca); `read_cg` bypasses it (ld.cg),
//! so its plateau is L2 from the smallest set up to L2's capacity. `read_shared` reads one set that
//! all SMs share through L2, the other way L2 bandwidth is measured.
#include "bench/memory/bandwidth.h"
#include "common/arg_cache.h"
#include "common/chip_shape.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
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

// Private: every block re-reads a slice of its own (`KiB_per_sm` per SM over its blocks). Shared:
// every block re-reads the one set of `KiB` that all SMs share (ld.cg, L2), as the widely used L2
// benchmarks measure; on a chip with two L2 partitions the fabric counter shows how the two differ.
enum class Slices { kPrivate, kShared };

template <bool kBypassL1, Slices kSlices = Slices::kPrivate>
void read_rows(benchmark::State& state) {
  static ArgCache<CacheBuffers> cache;
  constexpr bool shared = kSlices == Slices::kShared;
  const std::int64_t kib = arg(state, shared ? "KiB" : "KiB_per_sm");
  const int blocks = device().sm_count * kBlocksPerSm;
  const std::int64_t slice_bytes = shared ? kib * 1024 : kib * 1024 / kBlocksPerSm;
  const unsigned slice_vectors = static_cast<unsigned>(slice_bytes / static_cast<std::int64_t>(sizeof(float4)));
  const std::size_t threads = static_cast<std::size_t>(blocks) * kernels::kCacheReadThreads;
  CacheBuffers& b = cache.get({kib}, [&] {
    return CacheBuffers(std::size_t{slice_vectors} * (shared ? 1 : static_cast<std::size_t>(blocks)), threads);
  });
  const double working_set = static_cast<double>(b.data.bytes());
  const double bytes_per_rep = static_cast<double>(slice_vectors) * sizeof(float4) * blocks;
  const int reps = std::max(1, static_cast<int>(kBytesPerLaunch / bytes_per_rep));
  RunOptions options{{"l1_hit_rate", "l2_hit_rate", "dram_read_bytes", "l2_read_bytes"}};
  if (kBypassL1) {
    options.counters.push_back("l2_fabric_sectors");
    options.counters.push_back("sm_received_read_bytes");
    options.counters.push_back("l2_coalesced_read_sectors");
  }
  options.profile_warm = true;  // counters of the state the timed launches saw (each re-reads its set anyway)
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernels::cache_read<kBypassL1><<<blocks, kernels::kCacheReadThreads, 0, s>>>(b.data.data(), slice_vectors, reps,
                                                                                     b.partial.data(), c, shared);
      },
      options);
  report_bandwidth(state, result, bytes_per_rep * reps, false);  // L1 and L2 rows beat any DRAM peak
  state.counters["working_set_bytes"] = working_set;
  state.counters["reps"] = reps;
}

GPUBENCH_FAMILY(CacheBandwidth) {
  using Sizes = std::vector<std::int64_t>;
  // KiB per SM, from the GPU's sizes: inside L1 (1/16 to all of an SM's L1/shared array), and past
  // L2 (4x L2's share per SM, rounded up to a power of two). H100: 16, 64, 128, 256 and 2048 KiB.
  const ChipShape& chip = family.chip();
  const std::int64_t l1_kib = static_cast<std::int64_t>(chip.l1_shared_bytes >> 10);
  const std::int64_t l2_kib_per_sm = static_cast<std::int64_t>(chip.l2_bytes >> 10) / std::max(1, chip.sm_count);
  std::int64_t dram_kib = 1;
  while (dram_kib < 4 * l2_kib_per_sm) dram_kib *= 2;
  Sizes sizes = {l1_kib / 16};  // full: eighths of L1, then 1.25x, 1.5x, 2x, 3x... of it up to the DRAM point
  for (std::int64_t kib = l1_kib / 8; kib <= l1_kib; kib += l1_kib / 8) sizes.push_back(kib);
  sizes.push_back(l1_kib * 5 / 4);
  for (std::int64_t kib = l1_kib * 3 / 2; kib < dram_kib; kib = kib % 3 == 0 ? kib / 3 * 4 : kib / 2 * 3)
    sizes.push_back(kib);
  sizes.push_back(dram_kib);
  // The node check runs the quick points of all three: they carry the card's bandwidth per level.
  auto* cached = in_check(family.gpu("CacheBandwidth/read", {"KiB_per_sm"}, read_rows<false>));
  for (std::int64_t kib : family.pick<Sizes>({l1_kib / 16, l1_kib / 4, l1_kib / 2, l1_kib, dram_kib}, sizes))
    add_point(cached, {{"KiB_per_sm", kib}});
  auto* bypass = in_check(family.gpu("CacheBandwidth/read_cg", {"KiB_per_sm"}, read_rows<true>));
  for (std::int64_t kib : family.pick<Sizes>({l1_kib / 16, l1_kib / 2, dram_kib}, sizes))
    add_point(bypass, {{"KiB_per_sm", kib}});
  // One set all SMs share, KiB in all: from 512 KiB to twice L2 (quick: 2 MiB and a third of L2).
  const std::int64_t l2_kib = static_cast<std::int64_t>(chip.l2_bytes >> 10);
  Sizes shared_sizes;
  for (std::int64_t kib = 512; kib <= 2 * l2_kib; kib *= 2) {
    shared_sizes.push_back(kib);
    if (kib * 3 / 2 <= 2 * l2_kib) shared_sizes.push_back(kib * 3 / 2);
  }
  auto* shared = in_check(family.gpu("CacheBandwidth/read_shared", {"KiB"}, read_rows<true, Slices::kShared>));
  for (std::int64_t kib : family.pick<Sizes>({2048, l2_kib / 3 / 1024 * 1024}, shared_sizes))
    add_point(shared, {{"KiB", kib}});
}

GPUBENCH_COUNTERS(CacheBandwidth,
                  {"reps", "passes", CounterKind::kFixed, "times each block re-reads its slice per launch"});

}  // namespace
}  // namespace gpubench
