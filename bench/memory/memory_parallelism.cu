//! Memory-level parallelism: bandwidth from many pointer chases at once over a 2 GiB set, far beyond
//! L2. A chain is followed by a whole warp (each lane reads one word of the node's 128-byte line, so
//! a step moves one full line, coalesced); each warp keeps `chains` of them in registers. Sweeps
//! chains x threads on one SM, then chains x warps per SM on every SM. Little's law: bandwidth =
//! bytes in flight / latency, so more chains in flight turn a fixed latency into more bandwidth.
#include "bench/memory/chase/device_chain.cuh"
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/cuda_check.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "common/warp.h"
#include "kernels/memory/pointer_chase.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

constexpr std::size_t kSetBytes = std::size_t{2} << 30;
constexpr std::size_t kNodeBytes = 128;
constexpr std::uint32_t kStepsPerLaunch = 64;
constexpr int kMaxThreadsPerBlock = 1024;

// The chase kernel for `chains` chains per warp: for the occupancy query and the launch.
struct ChaseVariant {
  const void* kernel;
  void (*launch)(unsigned blocks, unsigned threads, cudaStream_t, const std::uint32_t*, std::uint32_t*, Clocks);
};

ChaseVariant variant_of(int chains) {
  return dispatch<1, 2, 4, 8, 16>(chains, [](auto c) {
    constexpr int kChains = decltype(c)::value;
    return ChaseVariant{reinterpret_cast<const void*>(kernels::parallel_chase<kChains>),
                        [](unsigned blocks, unsigned threads, cudaStream_t s, const std::uint32_t* words,
                           std::uint32_t* positions, Clocks clocks) {
                          kernels::parallel_chase<kChains>
                              <<<blocks, threads, 0, s>>>(words, positions, kStepsPerLaunch, clocks);
                        }};
  });
}

// Where each chain starts: evenly spaced along the one cycle, so no chain walks into lines another
// chain loaded during the same launch.
struct ChainStarts {
  std::vector<std::size_t> places;  // place in the cycle's order
  std::vector<std::uint32_t> values;
};

ChainStarts chain_starts(const DeviceChain& chain, std::size_t count) {
  const std::size_t spacing = chain.host().nodes / count;
  if (spacing < kStepsPerLaunch) throw std::invalid_argument("too many chains for the set: they would overlap");
  ChainStarts starts;
  for (std::size_t i = 0; i < count; ++i) {
    starts.places.push_back(i * spacing);
    starts.values.push_back(chain.value_at(i * spacing));
  }
  return starts;
}

// The 2 GiB chain, built once for the whole family (every word of a node holds the link).
DeviceChain& big_chain(cudaStream_t stream) {
  static ArgCache<DeviceChain> cache;
  return cache.get({}, [&] { return DeviceChain(kSetBytes, kNodeBytes, 4, kNodeBytes / 4, stream); });
}

// whole_gpu: args are (chains, warps per SM) on every SM; otherwise (chains, threads) in one block.
void parallel_chase(benchmark::State& state, bool whole_gpu) {
  // Kept across Google Benchmark's trials: walking on (never restarting) keeps every load a DRAM load.
  static ArgCache<DeviceBuffer<std::uint32_t>> positions_cache;
  const int chains = static_cast<int>(arg(state, "chains"));
  const DeviceInfo& gpu = device();
  unsigned blocks = 1, threads = 0;
  if (!whole_gpu) {
    threads = static_cast<unsigned>(arg(state, "threads"));
  } else {
    const unsigned warps_per_sm = static_cast<unsigned>(arg(state, "warps_per_sm"));
    const unsigned threads_per_sm = warps_per_sm * kWarpSize;
    const unsigned blocks_per_sm = (threads_per_sm + kMaxThreadsPerBlock - 1) / kMaxThreadsPerBlock;
    threads = threads_per_sm / blocks_per_sm;
    blocks = blocks_per_sm * static_cast<unsigned>(gpu.sm_count);
  }
  if (threads % kWarpSize != 0) throw std::invalid_argument("threads must be whole warps");
  int resident_blocks = 0;
  const ChaseVariant chase = variant_of(chains);
  GPUBENCH_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, chase.kernel, static_cast<int>(threads), 0));
  const cudaStream_t stream = gpubench::stream();
  DeviceChain& chain = big_chain(stream);
  const std::size_t warps = static_cast<std::size_t>(blocks) * threads / kWarpSize;
  const std::size_t total_chains = warps * static_cast<std::size_t>(chains);
  const ChainStarts starts = chain_starts(chain, total_chains);
  DeviceBuffer<std::uint32_t>& positions =
      positions_cache.get({whole_gpu, chains, whole_gpu ? arg(state, "warps_per_sm") : threads}, [&] {
        DeviceBuffer<std::uint32_t> made(total_chains);
        made.upload(starts.values, stream);
        return made;
      });

  const double bytes_per_launch = static_cast<double>(total_chains) * kStepsPerLaunch * kNodeBytes;
  RunOptions options{{"dram_read_bytes", "l2_read_bytes"}};
  options.ideal_traffic = IdealTraffic{static_cast<double>(total_chains) * kStepsPerLaunch, bytes_per_launch, 0.0};
  const RunResult result = run(
      state, [&](cudaStream_t s, Clocks c) { chase.launch(blocks, threads, s, chain.words(), positions.data(), c); },
      options);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes_per_launch));
  report_per(state, result, "step", kStepsPerLaunch);  // block 0's view: the latency of one step under this load
  state.counters["threads_per_block"] = threads;
  state.counters["blocks"] = blocks;
  // Warps that run at once (registers may allow fewer than asked: the rest wait for a later wave).
  const std::size_t sms = whole_gpu ? static_cast<std::size_t>(gpu.sm_count) : 1;
  const std::size_t resident_warps =
      std::min(warps, static_cast<std::size_t>(resident_blocks) * sms * (threads / kWarpSize));
  const double in_flight_bytes = static_cast<double>(resident_warps) * chains * kNodeBytes;
  state.counters["resident_warps_per_sm"] = static_cast<double>(resident_warps) / static_cast<double>(sms);
  state.counters["loads_in_flight"] = static_cast<double>(resident_warps) * chains;  // 128-byte lines
  state.counters["bytes_in_flight"] = in_flight_bytes;
  // Little's law read backwards: latency = bytes in flight / bandwidth.
  state.counters["implied_latency_ns"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bytes_per_launch / in_flight_bytes * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);

  // Every chain, started again from its first node, must end where the host's walk of the cycle does.
  DeviceBuffer<std::uint32_t> check(total_chains);
  check.upload(starts.values, stream);
  chase.launch(blocks, threads, stream, chain.words(), check.data(), Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  const std::vector<std::uint32_t> ended = check.download(stream);
  for (std::size_t i = 0; i < total_chains; ++i)
    if (ended[i] != chain.value_after(starts.places[i], kStepsPerLaunch))
      throw std::runtime_error("chain " + std::to_string(i) + " ended on index " + std::to_string(ended[i]) +
                               ", the host's walk on " +
                               std::to_string(chain.value_after(starts.places[i], kStepsPerLaunch)));
}

GPUBENCH_FAMILY(MemoryParallelism) {
  auto* one_sm = family.gpu("MemoryParallelism/one_sm", {"chains", "threads"},
                            [](benchmark::State& state) { parallel_chase(state, false); });
  auto* whole_gpu = family.gpu("MemoryParallelism/gpu", {"chains", "warps_per_sm"},
                               [](benchmark::State& state) { parallel_chase(state, true); });
  using Points = std::vector<std::int64_t>;
  // Quick: one chain against many, one SM's worth of threads, and the whole GPU from few to all warps.
  for (std::int64_t chains : family.pick<Points>({1, 16}, {1, 2, 4, 8, 16})) {
    for (std::int64_t threads : family.pick<Points>({1024}, {32, 64, 128, 256, 512, 1024}))
      add_point(one_sm, {{"chains", chains}, {"threads", threads}});
    for (std::int64_t warps : family.pick<Points>({8, 64}, {1, 2, 4, 8, 16, 32, 64}))
      add_point(whole_gpu, {{"chains", chains}, {"warps_per_sm", warps}});
  }
}

GPUBENCH_COUNTERS(MemoryParallelism, {"blocks", "blocks", CounterKind::kFixed, "blocks the launch runs"},
                  {"threads_per_block", "threads", CounterKind::kFixed, "threads per block of the launch"},
                  {"resident_warps_per_sm", "warps", CounterKind::kFixed,
                   "warps an SM holds at once (occupancy API): more asked for run in waves"});

}  // namespace
}  // namespace gpubench
