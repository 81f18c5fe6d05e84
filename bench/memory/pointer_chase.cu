//! Memory latency by pointer chasing: one thread, one dependent load at a time through a shuffled
//! chain over `bytes`, one node every `stride` bytes, so cycles per load are the latency of the level
//! that holds the set. Families: by load path (cached = ld.ca, l2_only = ld.cg, volatile = ld.cv),
//! 32-byte sector strides, 2 MiB page strides for TLB reach, L1/shared carveouts, and shared memory.
#include "bench/memory/chase/device_chain.cuh"
#include "bench/memory/chase/pinned.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/chip_shape.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/pointer_chase.cuh"

#include <algorithm>
#include <string>

namespace gpubench {
namespace {

constexpr std::uint32_t kTimedLoads = 4096;
// Untimed loads at the start of every launch: at least this many, and the whole cycle for sets of
// up to kMaxWarmupLoads nodes, so a set that fits L1 is in L1 before the first timed load.
constexpr std::uint32_t kMinWarmupLoads = 1024;
constexpr std::uint32_t kMaxWarmupLoads = 8192;
constexpr std::size_t kLineBytes = 128;
constexpr std::int64_t kPageStride = std::int64_t{2} << 20;  // cudaMalloc's large page on sm_80+
constexpr int kDefaultInstance = 0;
constexpr int kCarveoutInstance = 1;

std::uint32_t warmup_loads(std::size_t nodes) {
  return static_cast<std::uint32_t>(std::clamp<std::size_t>(nodes, kMinWarmupLoads, kMaxWarmupLoads));
}

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// One cache for every global-memory family: they run the same chains, built once per (bytes, stride, index unit).
ArgCache<DeviceChain>& device_chains() {
  static ArgCache<DeviceChain> cache;
  return cache;
}

// Skips (not a failure: the set does not apply to this GPU) when `bytes` exceed free device memory.
bool fits_in_free_memory(benchmark::State& state, std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUBENCH_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes <= free_bytes) return true;
  skip_benchmark(state, "working set of " + mib(bytes) + " exceeds the " + mib(free_bytes) +
                            " of free device memory (" + mib(total_bytes) + " total)");
  return false;
}

// Sets that L2 could hold are walked once whole when built (which ends where it began), so the
// first timed launches find them there, and again before the counters' profiled launch: the profiler's
// own start-up writes evict part of a set near L2's size, which one launch's few loads would not restore.
bool l2_could_hold(std::size_t bytes, std::size_t stride) {
  return (bytes / stride) * std::min(stride, kLineBytes) <= 2 * device().l2_bytes;
}

// The counters every latency row carries besides cycles (its set and stride are its arguments).
void report_chase(benchmark::State& state, const RunResult& result) { report_per(state, result, "load", kTimedLoads); }

template <kernels::LoadPath Path, unsigned IndexBytes = 4, int Instance = kDefaultInstance>
void global_chase(benchmark::State& state) {
  constexpr auto kernel = kernels::pointer_chase<Path, IndexBytes, Instance>;
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::size_t stride = static_cast<std::size_t>(arg(state, "stride"));
  const cudaStream_t stream = gpubench::stream();
  if constexpr (Instance == kCarveoutInstance) {
    const int carveout = static_cast<int>(arg(state, "carveout"));
    GPUBENCH_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                       cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
  }
  ArgCache<DeviceChain>& cache = device_chains();
  const ArgCache<DeviceChain>::Key key{arg(state, "bytes"), arg(state, "stride"), IndexBytes};
  if (!cache.holds(key)) {  // asked only before building: a later trial would count its own set as used
    cache.clear();          // the previous set's memory is free when we ask
    if (!fits_in_free_memory(state, bytes)) return;
  }
  const auto walk_whole_cycle = [&](DeviceChain& whole, cudaStream_t s) {
    kernel<<<1, 1, 0, s>>>(whole.words(), whole.position(), static_cast<std::uint32_t>(whole.host().nodes), 0, Clocks{},
                           kernels::kAnySm, nullptr, 0);
  };
  const bool warm_whole = l2_could_hold(bytes, stride);
  DeviceChain& chain = cache.get(key, [&] {
    DeviceChain made(bytes, stride, IndexBytes, 1, stream);
    if (warm_whole) {
      walk_whole_cycle(made, stream);
      finish_launched(stream);
    }
    return made;
  });
  // The counters must say which level served the timed loads: no L2 scrub before profiling.
  RunOptions options{{"l1_hit_rate", "l2_hit_rate", "dram_read_bytes"}};
  options.profile_warm = true;
  if (warm_whole) options.rewarm = [&](cudaStream_t s) { walk_whole_cycle(chain, s); };
  const std::uint32_t warmup = warmup_loads(chain.host().nodes);
  // On SM 0, as the load-to-use chase: the card subtracts one from the other.
  unsigned long long* claim = chase_claim();
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernel<<<pinned_blocks(), 1, 0, s>>>(chain.words(), chain.position(), warmup, kTimedLoads, c, 0, claim,
                                             next_launch_id());
      },
      options);
  report_chase(state, result);
  state.counters["sm"] = chain.last_sm();  // read back: the SM asked for

  // The course notebook's "checking results": a launch from the cycle's start ends where the host
  // says. It walks from a position of its own: restarting the main walk would make the next trial
  // re-read lines the last one left in L2 (seen: DRAM-sized sets 6% faster in one repetition).
  DeviceBuffer<std::uint32_t> check = chain.position_at(0);
  kernel<<<1, 1, 0, stream>>>(chain.words(), check.data(), warmup, kTimedLoads, Clocks{}, kernels::kAnySm, nullptr, 0);
  finish_launched(stream);
  chain.expect_walked(check, 0, warmup + kTimedLoads);
}

// Load-to-use: the same cycle, each node holding the next node's address, so a step is `p = *p`.
// Warm-up, whole-cycle walks and counters as for the indexed chase. The chase runs on one chosen SM
// (SM 0, or the third argument): an L2 hit costs more on SMs farther from the slice that holds the
// line, so an unpinned chase's reading would depend on where the block scheduler put it.
template <kernels::LoadPath Path, bool SmArgument = false>
void direct_chase(benchmark::State& state) {
  static ArgCache<DirectChain> chains;
  constexpr auto kernel = kernels::pointer_chase_direct<Path>;
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::size_t stride = static_cast<std::size_t>(arg(state, "stride"));
  const int target_sm = SmArgument ? static_cast<int>(arg(state, "sm")) : 0;
  if (target_sm >= device().sm_count) {
    skip_benchmark(state,
                   "no SM " + std::to_string(target_sm) + " here: this GPU has " + std::to_string(device().sm_count));
    return;
  }
  const unsigned blocks = pinned_blocks();
  const cudaStream_t stream = gpubench::stream();
  const auto walk_whole_cycle = [&](DirectChain& whole, cudaStream_t s) {
    kernel<<<blocks, 1, 0, s>>>(whole.position(), static_cast<std::uint32_t>(whole.host().nodes), 0, Clocks{},
                                target_sm, next_launch_id());
  };
  const bool warm_whole = l2_could_hold(bytes, stride);
  DirectChain& chain = chains.get({arg(state, "bytes"), arg(state, "stride")}, [&] {
    DirectChain made(bytes, stride, stream);
    if (warm_whole) {
      walk_whole_cycle(made, stream);
      finish_launched(stream);
    }
    return made;
  });
  // Which level served the loads: L1, near L2 (hits, no fabric traffic), far L2 (fabric sectors), DRAM.
  RunOptions options{{"l1_hit_rate", "l2_hit_rate", "l2_read_hit_sectors", "l2_read_miss_sectors",
                      "l2_far_read_hit_sectors", "dram_read_bytes"}};
  options.profile_warm = true;
  if (warm_whole) options.rewarm = [&](cudaStream_t s) { walk_whole_cycle(chain, s); };
  const std::uint32_t warmup = warmup_loads(chain.host().nodes);
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks c) {
        kernel<<<blocks, 1, 0, s>>>(chain.position(), warmup, kTimedLoads, c, target_sm, next_launch_id());
      },
      options);
  report_chase(state, result);
  state.counters["sm"] = chain.last_sm();  // where the chase ran: the SM asked for, read back

  DeviceBuffer<std::uint64_t> check = chain.position_at(0);
  kernel<<<blocks, 1, 0, stream>>>(check.data(), warmup, kTimedLoads, Clocks{}, target_sm, next_launch_id());
  finish_launched(stream);
  chain.expect_walked(check, 0, warmup + kTimedLoads);
}

// The L2's load-to-use latency from every SM in turn: a chip's L2 latency is a spread over its SMs
// (an SM's distance to the slices), not one SM's reading. A few untimed pinned launches per SM give
// the sweep (once per case, not per trial); the row's time and cycles are then the median SM's, timed
// as any row's. Each SM starts from place 0 after reading the whole set itself: past the near
// partition, what a chase meets depends on which SMs touched the lines last, so every SM gets the
// same history.
void l2_over_sms(benchmark::State& state) {
  static ArgCache<DirectChain> chains;
  constexpr auto kernel = kernels::pointer_chase_direct<kernels::LoadPath::kL2Only>;
  constexpr int kLaunchesPerSm = 3;
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::size_t stride = static_cast<std::size_t>(arg(state, "stride"));
  const cudaStream_t stream = gpubench::stream();
  const unsigned blocks = pinned_blocks();
  DirectChain& chain = chains.get({arg(state, "bytes"), arg(state, "stride")}, [&] {
    DirectChain made(bytes, stride, stream);
    kernel<<<1, 1, 0, stream>>>(made.position(), static_cast<std::uint32_t>(made.host().nodes), 0, Clocks{},
                                kernels::kAnySm, 0);
    finish_launched(stream);
    return made;
  });
  const std::uint32_t warmup = warmup_loads(chain.host().nodes);
  const auto on_sm = [&](int sm) {
    return [&, sm](cudaStream_t s, Clocks c) {
      kernel<<<blocks, 1, 0, s>>>(chain.position(), warmup, kTimedLoads, c, sm, next_launch_id());
    };
  };
  const int sms = device().sm_count;
  const std::vector<double> per_sm = once_per_case([&] {
    std::vector<double> cycles(static_cast<std::size_t>(sms));
    for (int sm = 0; sm < sms; ++sm) {
      chain.restart_touched_from(sm, blocks, next_launch_id());
      cycles[sm] = untimed_cycles(on_sm(sm), kLaunchesPerSm) / kTimedLoads;
    }
    return cycles;
  });
  std::vector<int> order(per_sm.size());
  for (int sm = 0; sm < sms; ++sm) order[sm] = sm;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return per_sm[a] < per_sm[b]; });
  const int median_sm = order[order.size() / 2];

  RunOptions options{{"l2_read_hit_sectors", "l2_read_miss_sectors", "l2_far_read_hit_sectors", "dram_read_bytes"}};
  options.profile_warm = true;
  options.rewarm = [&](cudaStream_t) { chain.restart_touched_from(median_sm, blocks, next_launch_id()); };
  options.rewarm(stream);
  const RunResult result = run(state, on_sm(median_sm), options);
  report_chase(state, result);
  state.counters["sm"] = chain.last_sm();
  state.counters["sms_swept"] = sms;
  state.counters["median_over_sms"] = per_sm[median_sm];
  state.counters["min_over_sms"] = per_sm[order.front()];
  state.counters["max_over_sms"] = per_sm[order.back()];
  state.counters["fastest_sm"] = order.front();
  state.counters["slowest_sm"] = order.back();

  DeviceBuffer<std::uint64_t> check = chain.position_at(0);
  kernel<<<blocks, 1, 0, stream>>>(check.data(), warmup, kTimedLoads, Clocks{}, median_sm, next_launch_id());
  finish_launched(stream);
  chain.expect_walked(check, 0, warmup + kTimedLoads);
}

// The chase inside shared memory: dense (every word a node), sets up to the block's opt-in limit.
// Indexed (`at = words[at]`, an address computed per step) or direct (`at = *at`, load-to-use).
template <bool Direct>
void shared_chase(benchmark::State& state) {
  static ArgCache<DeviceChain> chains;
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::size_t stride = static_cast<std::size_t>(arg(state, "stride"));
  const std::size_t limit = device().shared_memory_per_block_optin_bytes;
  if (bytes > limit) {
    skip_benchmark(state, "needs " + std::to_string(bytes >> 10) + " KiB of shared memory; a block may have " +
                              std::to_string(limit >> 10) + " KiB here");
    return;
  }
  const cudaStream_t stream = gpubench::stream();
  DeviceChain& chain =
      chains.get({arg(state, "bytes"), arg(state, "stride")}, [&] { return DeviceChain(bytes, stride, 4, 1, stream); });
  const auto words = static_cast<std::uint32_t>(chain.host().word_count());
  const auto kernel = Direct ? kernels::pointer_chase_shared_direct : kernels::pointer_chase_shared;
  GPUBENCH_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)));
  const std::uint32_t warmup = warmup_loads(chain.host().nodes);
  auto launch = [&](cudaStream_t s, Clocks c) {
    kernel<<<1, 256, bytes, s>>>(chain.words(), words, chain.position(), warmup, kTimedLoads, c);
  };
  const RunResult result = run(state, launch);
  report_chase(state, result);

  DeviceBuffer<std::uint32_t> check = chain.position_at(0);
  kernel<<<1, 256, bytes, stream>>>(chain.words(), words, check.data(), warmup, kTimedLoads, Clocks{});
  finish_launched(stream);
  chain.expect_walked(check, 0, warmup + kTimedLoads);
}

// Powers of two from `from` to `to`, with the point halfway (x1.5) between each pair for resolution.
std::vector<std::int64_t> working_sets(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> sets;
  for (std::int64_t bytes = from; bytes <= to; bytes *= 2) {
    sets.push_back(bytes);
    if (bytes < to) sets.push_back(bytes + bytes / 2);
  }
  return sets;
}

GPUBENCH_FAMILY(PointerChase) {
  using kernels::LoadPath;
  using Sets = std::vector<std::int64_t>;
  constexpr std::int64_t KiB = 1024, MiB = KiB * KiB, GiB = KiB * MiB;
  const bool quick = family.preset() != Preset::kFull;
  const ChipShape& chip = family.chip();
  const std::vector<std::string> set_and_stride{"bytes", "stride"};
  // Quick: sizes inside and past L1, and on both sides of the near-L2 (half of L2 on chips with two
  // partitions), whole-L2 and DRAM edges, from the GPU's sizes (H100: 16 KiB-384 KiB, 1-64 MiB, 256
  // MiB, 1 GiB). The full sweep adds a point inside the far-L2 plateau (80% of L2), whose end nearly
  // fills the L2 and moves by a few percent between runs.
  auto* cached = family.gpu("PointerChase/cached", set_and_stride, global_chase<LoadPath::kCached>);
  Sets full_sets = working_sets(4 * KiB, GiB);
  full_sets.push_back(far_l2_set(chip));
  std::sort(full_sets.begin(), full_sets.end());
  full_sets.erase(std::unique(full_sets.begin(), full_sets.end()), full_sets.end());
  Sets quick_sets = l1_edge_sets(chip);
  for (std::int64_t bytes : l2_edge_sets(chip))
    if (bytes > quick_sets.back()) quick_sets.push_back(bytes);
  // The indexed chase only needs each level's latency beside the load-to-use one: quick keeps two
  // sets inside each level (a level needs two points), no edges.
  const std::int64_t l1_bytes = static_cast<std::int64_t>(chip.l1_shared_bytes);
  const std::int64_t l2_bytes = static_cast<std::int64_t>(chip.l2_bytes);
  const std::vector<std::int64_t> l1_sets = l1_edge_sets(chip);
  Sets inside_levels = {l1_sets[0], l1_sets[1], 4 * l1_bytes, 16 * l1_bytes};
  for (std::int64_t bytes : l2_edge_sets(chip))  // far L2 (from 64% of L2 to 80%), then DRAM
    if ((bytes >= l2_bytes * 16 / 25 && bytes <= far_l2_set(chip)) || bytes >= 4 * l2_bytes)
      inside_levels.push_back(bytes);
  for (std::int64_t bytes : family.pick<Sets>(inside_levels, full_sets))
    add_point(cached, {{"bytes", bytes}, {"stride", 128}});
  if (!quick) {
    for (std::int64_t bytes = 4 * KiB; bytes <= 256 * MiB; bytes *= 2)
      add_point(cached, {{"bytes", bytes}, {"stride", 32}});  // sector strides
  }
  // Load-to-use (`p = *p`, no address arithmetic): the same sets as the indexed ld.ca chase.
  // The node check's latency per level: the load-to-use sweeps (whole, as the levels are found from them).
  auto* direct = in_check(family.gpu("PointerChase/direct", set_and_stride, direct_chase<LoadPath::kCached>));
  for (std::int64_t bytes : family.pick<Sets>(quick_sets, full_sets))
    add_point(direct, {{"bytes", bytes}, {"stride", 128}});
  const std::int64_t near_l2 = std::min<std::int64_t>(2 * MiB, static_cast<std::int64_t>(chip.l2_bytes) / 4);
  auto* direct_l2 = in_check(family.gpu("PointerChase/direct_l2", set_and_stride, direct_chase<LoadPath::kL2Only>));
  for (std::int64_t bytes : family.pick<Sets>(
           {4 * KiB, static_cast<std::int64_t>(chip.l2_bytes) / 3 / MiB * MiB, far_l2_set(chip), GiB}, full_sets))
    add_point(direct_l2, {{"bytes", bytes}, {"stride", 128}});
  // The near- and far-L2 load-to-use latency from every SM of the chip, one row each (median, range,
  // fastest and slowest SM); the full preset also keeps a row per 4th SM for plots.
  auto* l2_sms = family.gpu("PointerChase/l2_sms", set_and_stride, l2_over_sms);
  for (std::int64_t bytes : {near_l2, far_l2_set(chip)}) add_point(l2_sms, {{"bytes", bytes}, {"stride", 128}});
  if (!quick) {
    auto* direct_sm =
        family.gpu("PointerChase/direct_sm", {"bytes", "stride", "sm"}, direct_chase<LoadPath::kL2Only, true>);
    for (std::int64_t bytes : {near_l2, far_l2_set(chip)})
      for (std::int64_t sm = 0; sm < chip.sm_count; sm += 4)
        add_point(direct_sm, {{"bytes", bytes}, {"stride", 128}, {"sm", sm}});
  }
  auto* l2_only = family.gpu("PointerChase/l2_only", set_and_stride, global_chase<LoadPath::kL2Only>);
  for (std::int64_t bytes : family.pick<Sets>({4 * KiB, GiB}, working_sets(4 * KiB, GiB)))
    add_point(l2_only, {{"bytes", bytes}, {"stride", 128}});
  if (!quick) {
    auto* uncached = family.gpu("PointerChase/volatile", set_and_stride, global_chase<LoadPath::kVolatile>);
    for (std::int64_t bytes : working_sets(4 * KiB, GiB)) add_point(uncached, {{"bytes", bytes}, {"stride", 128}});
  }

  // TLB reach: one node per 2 MiB page, data in L2 (a few MiB of lines), so only translation misses
  // add latency. Sets past the GPU's free memory skip with a message.
  auto* tlb = family.gpu("PointerChase/tlb", set_and_stride, global_chase<LoadPath::kL2Only, kPageStride>);
  for (std::int64_t bytes :
       family.pick<Sets>({32 * MiB, 64 * MiB, 256 * MiB, 384 * MiB, 512 * MiB, 768 * MiB, GiB, 2 * GiB, 4 * GiB},
                         working_sets(32 * MiB, 128 * GiB)))
    add_point(tlb, {{"bytes", bytes}, {"stride", kPageStride}});

  // The L1 edge under three L1/shared splits (percent of the unified array preferred as shared).
  // Quick: four sizes up to the L1 each split leaves (H100, 0%: 160-256 KiB).
  auto* carveout = family.gpu("PointerChase/carveout", {"bytes", "stride", "carveout"},
                              global_chase<LoadPath::kCached, 4, kCarveoutInstance>);
  for (int percent : {0, 50, 100}) {
    Sets sets = sets_below(static_cast<std::int64_t>(l1_bytes_at_carveout(chip, percent)));
    if (!quick) {
      sets.clear();
      for (std::int64_t bytes = 8 * KiB; bytes <= static_cast<std::int64_t>(chip.l1_shared_bytes) * 5 / 4;
           bytes += bytes < 64 * KiB ? 8 * KiB : 32 * KiB)
        sets.push_back(bytes);
    }
    for (std::int64_t bytes : sets) add_point(carveout, {{"bytes", bytes}, {"stride", 128}, {"carveout", percent}});
  }

  const Sets shared_sets =
      family.pick<Sets>({4 * KiB, 64 * KiB}, {4 * KiB, 16 * KiB, 64 * KiB, 128 * KiB, 192 * KiB, 224 * KiB});
  auto* shared = family.gpu("PointerChase/shared", set_and_stride, shared_chase<false>);
  for (std::int64_t bytes : shared_sets) add_point(shared, {{"bytes", bytes}, {"stride", 4}});
  auto* shared_direct = family.gpu("PointerChase/shared_direct", set_and_stride, shared_chase<true>);
  for (std::int64_t bytes : shared_sets) add_point(shared_direct, {{"bytes", bytes}, {"stride", 4}});
}

GPUBENCH_COUNTERS(PointerChase,
                  {"sm", "SM index", CounterKind::kMeasured, "the SM the chase ran on, read back from %smid"},
                  {"sms_swept", "SMs", CounterKind::kFixed, "SMs the over-SMs sweep chased from (every SM of the GPU)"},
                  {"median_over_sms", "cycles", CounterKind::kMeasured,
                   "cycles per load of the median SM of the sweep (untimed launches)", Better::kLower, false},
                  {"min_over_sms", "cycles", CounterKind::kMeasured, "cycles per load of the fastest SM of the sweep",
                   Better::kLower, false},
                  {"max_over_sms", "cycles", CounterKind::kMeasured, "cycles per load of the slowest SM of the sweep",
                   Better::kLower, false},
                  {"fastest_sm", "SM index", CounterKind::kMeasured, "the SM with the fewest cycles per load"},
                  {"slowest_sm", "SM index", CounterKind::kMeasured, "the SM with the most cycles per load"});

}  // namespace
}  // namespace gpubench
