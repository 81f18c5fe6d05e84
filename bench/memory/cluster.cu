//! Thread-block clusters (sm_90+) and distributed shared memory (DSMEM). Latency: thread 0 of block 0
//! chases a chain laid in the shared memory of the cluster's block `rank` (by cluster size, 2 to 16),
//! beside the same chase in its own shared memory (block window, or its own through the cluster
//! window). Bandwidth: every block reads (or writes) the next block's shared memory, by cluster size
//! and access width, beside each block its own. One block per SM throughout, so every remote access
//! crosses between SMs. docs/experiments/cluster.md.
#include "bench/memory/bandwidth.h"
#include "bench/memory/chase/device_chain.cuh"
#include "bench/memory/chase/pinned.h"
#include "bench/memory/cluster_launch.h"
#include "bench/one_block_per_sm.h"
#include "common/arg_cache.h"
#include "common/benchmark_compat.h"
#include "common/counter_catalog.h"
#include "common/dispatch.h"
#include "common/experiment.h"
#include "common/registry.h"
#include "kernels/memory/cluster.cuh"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::SharedWindow;

constexpr std::uint32_t kTimedLoads = 4096;
constexpr std::uint32_t kWarmupLoads = 1024;
constexpr int kChainBytes = 32 * 1024;  // 256 nodes of 128 bytes in each block's shared memory
constexpr int kChainStride = 128;
constexpr int kChaseThreads = 256;    // lay the chain; one of them chases
constexpr int kStreamThreads = 1024;  // enough remote loads in flight to cover the SM-to-SM latency
constexpr std::uint32_t kStreamBytes = 64 * 1024;

// Clusters of `cluster` blocks, one block per SM, that the GPU holds at once; nullopt (the row
// skipped, saying why) when none fits.
template <class... Params>
std::optional<int> clusters_that_fit(benchmark::State& state, void (*kernel)(Params...), int cluster, int threads,
                                     int shared_bytes) {
  const int clusters =
      resident_clusters(kernel, static_cast<unsigned>(cluster), static_cast<unsigned>(threads), shared_bytes);
  if (clusters > 0) return clusters;
  skip_benchmark(state, "a cluster of " + std::to_string(cluster) + " blocks, one per SM (" +
                            std::to_string(shared_bytes >> 10) + " KiB of shared memory each), does not fit this GPU" +
                            (cluster > 8 ? " (above 8 blocks is a non-portable size the GPU may refuse)" : ""));
  return std::nullopt;
}

DeviceChain& shared_chain() {
  static ArgCache<DeviceChain> chains;
  return chains.get({kChainBytes, kChainStride}, [] { return DeviceChain(kChainBytes, kChainStride, 4, 1, stream()); });
}

// One cluster of `cluster` blocks; block 0 chases in block `rank`'s shared memory through `Window`.
template <SharedWindow Window>
void chase(benchmark::State& state, int cluster, int rank) {
  if (rank < 0 || rank >= cluster)
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not a block of a cluster of " +
                                std::to_string(cluster));
  const auto kernel = kernels::dsmem_chase<Window>;
  const int shared_bytes = one_block_per_sm(kernel, kChaseThreads, kChainBytes);
  if (!clusters_that_fit(state, kernel, cluster, kChaseThreads, shared_bytes)) return;
  DeviceChain& chain = shared_chain();
  const auto words = static_cast<std::uint32_t>(chain.host().word_count());
  static ArgCache<DeviceBuffer<std::uint32_t>> sm_ids;  // one per case, not per trial
  DeviceBuffer<std::uint32_t>& sms =
      sm_ids.get({cluster}, [&] { return DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(cluster)); });
  const auto launch = [&](cudaStream_t s, Clocks clocks, std::uint32_t* position) {
    launch_clusters(kernel, static_cast<unsigned>(cluster), kChaseThreads, shared_bytes, static_cast<unsigned>(cluster),
                    s, chain.words(), words, position, static_cast<unsigned>(rank), kWarmupLoads, kTimedLoads,
                    sms.data(), clocks);
  };
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) { launch(s, c, chain.position()); });
  report_per(state, result, "load", kTimedLoads);
  const std::vector<std::uint32_t> where = sms.download(stream());
  state.counters["sm"] = where[0];
  state.counters["peer_sm"] = where[static_cast<std::size_t>(rank)];

  DeviceBuffer<std::uint32_t> check = chain.position_at(0);
  launch(stream(), Clocks{}, check.data());
  finish_launched(stream());
  chain.expect_walked(check, 0, kWarmupLoads + kTimedLoads);
}

// Every block of as many clusters as fit reads (writes) the next block's shared memory; a cluster
// of 1 reads its own through the block window: the local bandwidth the remote one is set against.
template <int Width, bool Write>
void stream_row(benchmark::State& state, int cluster) {
  const auto kernel = cluster == 1 ? kernels::dsmem_stream<Width, Write, SharedWindow::kBlock>
                                   : kernels::dsmem_stream<Width, Write, SharedWindow::kCluster>;
  const int shared_bytes = one_block_per_sm(kernel, kStreamThreads, static_cast<int>(kStreamBytes));
  const std::optional<int> clusters = clusters_that_fit(state, kernel, cluster, kStreamThreads, shared_bytes);
  if (!clusters) return;
  const int blocks = *clusters * cluster;
  // About a millisecond per launch: remote shared memory is several times slower than local.
  const std::uint32_t reps = cluster == 1 ? 2048 : 256;
  static ArgCache<DeviceBuffer<std::uint32_t>> outs;
  const std::size_t out_words =
      static_cast<std::size_t>(blocks) * std::max<std::size_t>(kStreamThreads, kStreamBytes / 4);
  DeviceBuffer<std::uint32_t>& out =
      outs.get({static_cast<std::int64_t>(out_words)}, [&] { return DeviceBuffer<std::uint32_t>(out_words); });
  const RunResult result = run(state, [&](cudaStream_t s, Clocks c) {
    launch_clusters(kernel, static_cast<unsigned>(blocks), kStreamThreads, shared_bytes, static_cast<unsigned>(cluster),
                    s, out.data(), kStreamBytes, reps, c);
  });
  const double bytes = static_cast<double>(blocks) * reps * kStreamBytes;
  report_bandwidth(state, result, bytes, false);
  state.counters["blocks"] = blocks;
  state.counters["reps"] = reps;
  if (result.sm_mhz > 0)
    state.counters["bytes_per_clock_per_block"] = benchmark::Counter(
        bytes * static_cast<double>(state.iterations()) / (result.sm_mhz * 1e6 * blocks), benchmark::Counter::kIsRate);
}

void stream_rows(benchmark::State& state) {
  const int cluster = static_cast<int>(arg(state, "cluster"));
  const bool write = arg(state, "write") != 0;
  dispatch<4, 8, 16>(static_cast<int>(arg(state, "width")), [&](auto width) {
    constexpr int W = decltype(width)::value;
    if (write)
      stream_row<W, true>(state, cluster);
    else
      stream_row<W, false>(state, cluster);
  });
}

using Points = std::vector<Point>;

// The rows' axes by name.
Point cluster_rank(std::int64_t cluster, std::int64_t rank) { return {{"cluster", cluster}, {"rank", rank}}; }
Point cluster_width_write(std::int64_t cluster, std::int64_t width, std::int64_t write) {
  return {{"cluster", cluster}, {"width", width}, {"write", write}};
}

GPUBENCH_FAMILY(Cluster) {
  const Requirement clusters = needs_sm(90, "a thread-block cluster");
  family.gpu(
      "Cluster/smem_latency", {}, [](benchmark::State& state) { chase<SharedWindow::kBlock>(state, 1, 0); }, clusters);
  // Quick: the block's own memory through the cluster window, the nearest and the last rank of
  // clusters of 2 to 16 (the SM pairs vary with the rank); full: every rank of every size.
  const Points quick{cluster_rank(1, 0), cluster_rank(2, 1), cluster_rank(4, 1),  cluster_rank(4, 3),
                     cluster_rank(8, 1), cluster_rank(8, 7), cluster_rank(16, 1), cluster_rank(16, 15)};
  Points full{cluster_rank(1, 0)};
  for (std::int64_t size = 2; size <= 16; ++size)
    for (std::int64_t rank = 0; rank < size; ++rank) full.push_back(cluster_rank(size, rank));
  auto* latency = family.gpu(
      "Cluster/dsmem_latency", {"cluster", "rank"},
      [](benchmark::State& state) {
        chase<SharedWindow::kCluster>(state, static_cast<int>(arg(state, "cluster")),
                                      static_cast<int>(arg(state, "rank")));
      },
      clusters);
  for (const Point& point : family.pick(quick, full)) add_point(latency, point);

  // Cluster size (1: each block its own memory), bytes per access, write.
  Points quick_stream;
  for (std::int64_t size : {1, 2, 4, 8, 16}) quick_stream.push_back(cluster_width_write(size, 16, 0));
  for (std::int64_t size : {1, 2}) quick_stream.push_back(cluster_width_write(size, 16, 1));
  Points full_stream;
  for (std::int64_t write : {0, 1})
    for (std::int64_t width : {4, 8, 16})
      for (std::int64_t size : {1, 2, 4, 8, 16}) full_stream.push_back(cluster_width_write(size, width, write));
  auto* bandwidth = family.gpu("Cluster/dsmem_bandwidth", {"cluster", "width", "write"}, stream_rows, clusters);
  for (const Point& point : family.pick(quick_stream, full_stream)) add_point(bandwidth, point);
}

GPUBENCH_COUNTERS(Cluster,
                  {"peer_sm", "SM index", CounterKind::kMeasured,
                   "the SM of the block whose shared memory the chase read (%smid, read back)"},
                  {"bytes_per_clock_per_block", "bytes/clk", CounterKind::kMeasured,
                   "bytes moved per SM clock per block of the launch (one block per SM: per working SM)",
                   Better::kHigher});

}  // namespace
}  // namespace gpubench
