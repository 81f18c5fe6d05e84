//! Contended atomics: what an atomicAdd costs as more lanes of a warp, or every warp of the GPU, add to
//! the same counter; in global memory (L2's atomic units) and in shared memory, with and without the old
//! value returned. The result is atomics per second and per SM clock over the whole GPU.
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/device_memory.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/atomics.cuh"

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::AtomicOp;
using kernels::AtomicSharing;

constexpr int kBlocksPerSm = 8;  // 2048 threads: every SM full
// Adds per thread, so that a launch lasts 0.14 ms or more at the rates seen on an H100 (its start, a few
// microseconds, then stays under a few percent): shared memory takes a GPU's worth of warps' adds ~16x faster
// than L2, and the whole GPU's 32 counters 40-370x slower.
constexpr int kIterationsShared = 4096;
constexpr int kIterationsPerWarp = 1024;
constexpr int kIterationsPerGpu = 16;
static_assert((kIterationsShared | kIterationsPerWarp | kIterationsPerGpu) % kernels::kAtomicUnroll == 0);

// Which L2 slices serve the counters' lines depends on their physical address. One set of counters for a
// whole run moved the per-lane rate 6-8% between identical runs; sets 64 MiB or 1 GiB apart differ with an sd
// of 2% (an allocation each, on neighbouring pages: 1%; test/validation/atomics_placement_probe.cu). So the
// global rows' launches take kPlacements sets in turn and a run reads their mean.
constexpr int kPlacements = 8;
constexpr std::size_t kPlacementStepWords = (std::size_t{64} << 20) / sizeof(unsigned);

// Global rows take kPlacements sets of counters 64 MiB apart (449 MiB on an H100); shared rows only copy
// their block's counters out, one word a thread.
struct AtomicBuffers {
  AtomicBuffers(std::size_t threads, int placements)
      : placements(placements),
        counters(static_cast<std::size_t>(placements - 1) * kPlacementStepWords + threads),
        tickets(threads) {
    counters.fill_bytes(0, stream());
  }
  // The next global launch's set of counters (one per thread: enough for every sharing).
  unsigned* next_placement() { return counters.data() + (launches++ % placements) * kPlacementStepWords; }
  int placements;
  DeviceBuffer<unsigned> counters;
  DeviceBuffer<unsigned> tickets;
  std::size_t launches = 0;
};

void report_rate(benchmark::State& state, const RunResult& result, double atomics_per_launch, int iterations) {
  const double atomics = atomics_per_launch * static_cast<double>(state.iterations());
  state.counters["atomics_per_second"] = benchmark::Counter(atomics, benchmark::Counter::kIsRate);
  if (result.sm_mhz > 0)
    state.counters["atomics_per_clock"] =
        benchmark::Counter(atomics / (result.sm_mhz * 1e6), benchmark::Counter::kIsRate);
  state.counters["adds_per_thread"] = iterations;
}

template <AtomicOp Op, bool kShared, AtomicSharing sharing>
void atomic_rows(benchmark::State& state) {
  static ArgCache<AtomicBuffers> cache;
  const int lanes = static_cast<int>(arg(state, "lanes_per_address"));
  const int blocks = device().sm_count * kBlocksPerSm;
  const std::size_t threads = static_cast<std::size_t>(blocks) * kernels::kAtomicThreads;
  const int placements = kShared ? 1 : kPlacements;
  AtomicBuffers& b =
      cache.get({static_cast<std::int64_t>(threads), placements}, [&] { return AtomicBuffers(threads, placements); });
  const int iterations = kShared                             ? kIterationsShared
                         : sharing == AtomicSharing::kPerGpu ? kIterationsPerGpu
                                                             : kIterationsPerWarp;
  RunOptions options{kShared ? std::vector<std::string>{} : std::vector<std::string>{"l2_utilization"}};
  options.cold_l2 = false;  // the counters live in L2, as a busy counter's do
  const RunResult result = run(
      state,
      [&](cudaStream_t s, Clocks c) {
        if constexpr (kShared)
          kernels::atomic_add_shared<Op>
              <<<blocks, kernels::kAtomicThreads, 0, s>>>(b.counters.data(), b.tickets.data(), lanes, iterations, c);
        else
          kernels::atomic_add_global<Op><<<blocks, kernels::kAtomicThreads, 0, s>>>(
              b.next_placement(), b.tickets.data(), lanes, sharing, iterations, c);
      },
      options);
  report_rate(state, result, static_cast<double>(threads) * iterations, iterations);
}

GPUBENCH_FAMILY(Atomics) {
  using Lanes = std::vector<std::int64_t>;
  const Lanes every_width = {1, 2, 4, 8, 16, 32};
  struct Kind {
    const char* space;
    const char* op;
    const char* sharing;
    void (*body)(benchmark::State&);
    Lanes quick;  // the points that carry the card's values
  };
  constexpr AtomicSharing kWarp = AtomicSharing::kPerWarp, kGpu = AtomicSharing::kPerGpu;
  const Kind kinds[] = {
      {"global", "red", "warp", atomic_rows<AtomicOp::kRed, false, kWarp>, {1, 32}},
      {"global", "red", "gpu", atomic_rows<AtomicOp::kRed, false, kGpu>, {32}},
      {"global", "atom", "warp", atomic_rows<AtomicOp::kAtom, false, kWarp>, {}},
      {"global", "atom", "gpu", atomic_rows<AtomicOp::kAtom, false, kGpu>, {}},
      {"shared", "red", "warp", atomic_rows<AtomicOp::kRed, true, kWarp>, {1, 32}},
      {"shared", "atom", "warp", atomic_rows<AtomicOp::kAtom, true, kWarp>, {1, 32}},
  };
  for (const Kind& k : kinds) {
    const Lanes lanes = family.pick(k.quick, every_width);
    if (lanes.empty()) continue;
    auto* rows =
        family.gpu(std::string("Atomics/") + k.space + "/" + k.op + "/" + k.sharing, {"lanes_per_address"}, k.body);
    string_axis(string_axis(string_axis(rows, "space", k.space), "op", k.op), "sharing", k.sharing);
    for (std::int64_t width : lanes) add_point(rows, {{"lanes_per_address", width}});
  }
}

GPUBENCH_COUNTERS(Atomics,
                  {"atomics_per_second", "atomics/s", CounterKind::kMeasured,
                   "thread-level atomic adds the whole GPU completed per second of GPU time", Better::kHigher},
                  {"atomics_per_clock", "atomics/clk", CounterKind::kMeasured,
                   "atomics_per_second over the SM clock measured in the same run (whole GPU)", Better::kHigher},
                  {"adds_per_thread", "adds", CounterKind::kFixed, "atomic adds each thread makes per launch"});

}  // namespace
}  // namespace gpubench
