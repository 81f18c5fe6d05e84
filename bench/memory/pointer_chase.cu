//! Memory latency by pointer chasing: one thread, one dependent load at a time through a shuffled
//! chain over `bytes`, one node every `stride` bytes, so cycles per load are the latency of the level
//! that holds the set. Families: by load path (cached = ld.ca, l2_only = ld.cg, volatile = ld.cv),
//! 32-byte sector strides, 2 MiB page strides for TLB reach, L1/shared carveouts, and shared memory.
#include "bench/memory/chase/device_chain.cuh"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/cuda_check.h"
#include "common/counter_catalog.h"
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
  skip_benchmark(state, "working set of " + mib(bytes) + " exceeds the " + mib(free_bytes) + " of free device memory (" +
                            mib(total_bytes) + " total)");
  return false;
}

// Sets that L2 could hold are walked once whole when built (which ends where it began), so the
// first timed launches find them there, and again before the counters' profiled launch: the profiler's
// own start-up writes evict part of a set near L2's size, which one launch's few loads would not restore.
bool l2_could_hold(std::size_t bytes, std::size_t stride) {
  return (bytes / stride) * std::min(stride, kLineBytes) <= 2 * device().l2_bytes;
}

// Waits for what was just launched on `stream`, surfacing its launch and execution errors.
void finish_launched(cudaStream_t stream) {
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
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
    kernel<<<1, 1, 0, s>>>(whole.words(), whole.position(), static_cast<std::uint32_t>(whole.host().nodes), 0,
                           Clocks{});
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
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernel<<<1, 1, 0, s>>>(chain.words(), chain.position(), warmup, kTimedLoads, c);
  }, options);
  report_chase(state, result);
  state.counters["sm"] = chain.last_sm();  // unpinned: whichever SM the block scheduler chose

  // The course notebook's "checking results": a launch from the cycle's start ends where the host
  // says. It walks from a position of its own: restarting the main walk would make the next trial
  // re-read lines the last one left in L2 (seen: DRAM-sized sets 6% faster in one repetition).
  DeviceBuffer<std::uint32_t> check = chain.position_at(0);
  kernel<<<1, 1, 0, stream>>>(chain.words(), check.data(), warmup, kTimedLoads, Clocks{});
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
  static unsigned long long launch_id = 0;  // above every earlier launch's, for the SM claim
  constexpr auto kernel = kernels::pointer_chase_direct<Path>;
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::size_t stride = static_cast<std::size_t>(arg(state, "stride"));
  const int target_sm = SmArgument ? static_cast<int>(arg(state, "sm")) : 0;
  if (target_sm >= device().sm_count) {
    skip_benchmark(state, "no SM " + std::to_string(target_sm) + " here: this GPU has " +
                              std::to_string(device().sm_count));
    return;
  }
  const unsigned blocks = 2 * static_cast<unsigned>(device().sm_count);  // at least one lands on every SM
  const cudaStream_t stream = gpubench::stream();
  const auto walk_whole_cycle = [&](DirectChain& whole, cudaStream_t s) {
    kernel<<<blocks, 1, 0, s>>>(whole.position(), static_cast<std::uint32_t>(whole.host().nodes), 0, Clocks{},
                                target_sm, ++launch_id);
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
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    kernel<<<blocks, 1, 0, s>>>(chain.position(), warmup, kTimedLoads, c, target_sm, ++launch_id);
  }, options);
  report_chase(state, result);
  state.counters["sm"] = chain.last_sm();  // where the chase ran: the SM asked for, read back

  DeviceBuffer<std::uint64_t> check = chain.position_at(0);
  kernel<<<blocks, 1, 0, stream>>>(check.data(), warmup, kTimedLoads, Clocks{}, target_sm, ++launch_id);
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
  const bool quick = family.preset() == Preset::kQuick;
  const std::vector<std::string> set_and_stride{"bytes", "stride"};
  // Quick: sizes on each plateau and on both sides of each edge of the H100/H200 staircase (L1 up to
  // 192 KiB, near L2 up to 24 MiB, far L2 32-48 MiB, DRAM from 64 MiB), enough points for the level
  // rule. 40 MiB (in both presets) puts a point inside the far-L2 plateau, whose 48 MiB end nearly
  // fills the L2 and moves by a few percent between runs.
  auto* cached = family.gpu("PointerChase/cached", set_and_stride, global_chase<LoadPath::kCached>);
  Sets full_sets = working_sets(4 * KiB, GiB);
  full_sets.insert(std::find(full_sets.begin(), full_sets.end(), 48 * MiB), 40 * MiB);
  const Sets quick_cached_sets = {16 * KiB, 64 * KiB, 128 * KiB, 192 * KiB, 256 * KiB, 384 * KiB, 1 * MiB, 4 * MiB,
                                  12 * MiB, 16 * MiB, 24 * MiB, 32 * MiB, 40 * MiB, 48 * MiB, 64 * MiB, 256 * MiB, GiB};
  for (std::int64_t bytes : family.pick<Sets>(quick_cached_sets, full_sets)) cached->Args({bytes, 128});
  if (!quick) {
    for (std::int64_t bytes = 4 * KiB; bytes <= 256 * MiB; bytes *= 2) cached->Args({bytes, 32});  // sector strides
  }
  // Load-to-use (`p = *p`, no address arithmetic): the same sets as the indexed ld.ca chase.
  auto* direct = family.gpu("PointerChase/direct", set_and_stride, direct_chase<LoadPath::kCached>);
  for (std::int64_t bytes : family.pick<Sets>(quick_cached_sets, full_sets)) direct->Args({bytes, 128});
  auto* direct_l2 = family.gpu("PointerChase/direct_l2", set_and_stride, direct_chase<LoadPath::kL2Only>);
  for (std::int64_t bytes : family.pick<Sets>({4 * KiB, 16 * MiB, 40 * MiB, GiB}, full_sets)) direct_l2->Args({bytes, 128});
  // The near- and far-L2 load-to-use latency seen from SMs across the chip (quick: every 16th SM to
  // 128, full: every 4th to 188; SMs past the GPU's count skip).
  auto* direct_sm = family.gpu("PointerChase/direct_sm", {"bytes", "stride", "sm"},
                               direct_chase<LoadPath::kL2Only, true>);
  for (std::int64_t bytes : {2 * MiB, 40 * MiB})
    for (std::int64_t sm = 0; sm <= (quick ? 128 : 188); sm += quick ? 16 : 4) direct_sm->Args({bytes, 128, sm});
  auto* l2_only = family.gpu("PointerChase/l2_only", set_and_stride, global_chase<LoadPath::kL2Only>);
  for (std::int64_t bytes : family.pick<Sets>({4 * KiB, GiB}, working_sets(4 * KiB, GiB))) l2_only->Args({bytes, 128});
  if (!quick) {
    auto* uncached = family.gpu("PointerChase/volatile", set_and_stride, global_chase<LoadPath::kVolatile>);
    for (std::int64_t bytes : working_sets(4 * KiB, GiB)) uncached->Args({bytes, 128});
  }

  // TLB reach: one node per 2 MiB page, data in L2 (a few MiB of lines), so only translation misses
  // add latency. Sets past the GPU's free memory skip with a message.
  auto* tlb = family.gpu("PointerChase/tlb", set_and_stride, global_chase<LoadPath::kL2Only, kPageStride>);
  for (std::int64_t bytes : family.pick<Sets>({32 * MiB, 64 * MiB, 256 * MiB, 384 * MiB, 512 * MiB, 768 * MiB, GiB,
                                               2 * GiB, 4 * GiB},
                                              working_sets(32 * MiB, 128 * GiB)))
    tlb->Args({bytes, kPageStride});

  // The L1 edge under three L1/shared splits (percent of the unified array preferred as shared).
  // Quick: two sizes each side of each split's edge.
  auto* carveout = family.gpu("PointerChase/carveout", {"bytes", "stride", "carveout"},
                              global_chase<LoadPath::kCached, 4, kCarveoutInstance>);
  const std::vector<std::pair<std::int64_t, Sets>> quick_edges = {
      {0, {160 * KiB, 192 * KiB, 224 * KiB, 256 * KiB}},
      {50, {64 * KiB, 96 * KiB, 128 * KiB, 160 * KiB}},
      {100, {8 * KiB, 16 * KiB, 24 * KiB, 32 * KiB}}};
  for (const auto& [percent, edge_sets] : quick_edges) {
    Sets sets = edge_sets;
    if (!quick) {
      sets.clear();
      for (std::int64_t bytes = 8 * KiB; bytes <= 320 * KiB; bytes += bytes < 64 * KiB ? 8 * KiB : 32 * KiB)
        sets.push_back(bytes);
    }
    for (std::int64_t bytes : sets) carveout->Args({bytes, 128, percent});
  }

  const Sets shared_sets = family.pick<Sets>({4 * KiB, 64 * KiB}, {4 * KiB, 16 * KiB, 64 * KiB, 128 * KiB, 192 * KiB,
                                                                  224 * KiB});
  auto* shared = family.gpu("PointerChase/shared", set_and_stride, shared_chase<false>);
  for (std::int64_t bytes : shared_sets) shared->Args({bytes, 4});
  auto* shared_direct = family.gpu("PointerChase/shared_direct", set_and_stride, shared_chase<true>);
  for (std::int64_t bytes : shared_sets) shared_direct->Args({bytes, 4});
}

GPUBENCH_COUNTERS(PointerChase,
                  {"sm", "SM index", CounterKind::kMeasured, "the SM the chase ran on, read back from %smid"});

}  // namespace
}  // namespace gpubench
