// Does where the counters land move the global atomicAdd rate? Times Atomics/global/red/warp with a
// counter per lane (the gpubench row whose identical runs differ by 6-8%) on several buffers held at
// once, each timed in turns so clock and heat drift fall on all of them alike; then with the warps dealt
// over 2 MiB regions, so one launch draws many pages. Not a test: a measurement for
// docs/experiments/atomics.md.
#include "common/cuda_check.h"
#include "common/detail/gpu_session.h"
#include "common/device_memory.h"
#include "kernels/memory/atomics.cuh"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

namespace gpubench {
namespace {

constexpr int kBuffers = 12;
constexpr int kTurns = 4;
constexpr int kLaunchesPerTurn = 10;
constexpr int kIterations = 1024;  // bench/memory/atomics.cu's kIterationsPerWarp

struct Spread {
  double low, high;
};
Spread spread(const std::vector<double>& values) {
  return {*std::min_element(values.begin(), values.end()), *std::max_element(values.begin(), values.end())};
}

void probe(unsigned regions, int lanes) {
  GpuSession& session = GpuSession::get();
  const cudaStream_t stream = session.stream();
  const int blocks = session.device().sm_count * 8;
  const std::size_t threads = static_cast<std::size_t>(blocks) * kernels::kAtomicThreads;
  const std::size_t words = regions == 1 ? threads : regions * kernels::kAtomicRegionWords;
  std::vector<DeviceBuffer<unsigned>> counters;
  for (int b = 0; b < kBuffers; ++b) {
    counters.emplace_back(words);
    counters.back().fill_bytes(0, stream);
  }
  DeviceBuffer<unsigned> tickets(threads);
  cudaEvent_t start, stop;
  GPUBENCH_CUDA(cudaEventCreate(&start));
  GPUBENCH_CUDA(cudaEventCreate(&stop));
  const auto launch = [&](unsigned* c) {
    kernels::atomic_add_global<kernels::AtomicOp::kRed><<<blocks, kernels::kAtomicThreads, 0, stream>>>(
        c, tickets.data(), lanes, kernels::AtomicSharing::kPerWarp, regions, kIterations, Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
  };
  launch(counters[0].data());                       // warm-up
  std::vector<std::vector<double>> rate(kBuffers);  // atomics per ns, one per turn
  for (int turn = 0; turn < kTurns; ++turn)
    for (int b = 0; b < kBuffers; ++b) {
      GPUBENCH_CUDA(cudaEventRecord(start, stream));
      for (int l = 0; l < kLaunchesPerTurn; ++l) launch(counters[b].data());
      GPUBENCH_CUDA(cudaEventRecord(stop, stream));
      GPUBENCH_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
      rate[b].push_back(static_cast<double>(threads) * kIterations * kLaunchesPerTurn / (ms * 1e6));
    }
  std::vector<double> means;
  double widest_turns = 0;
  for (int b = 0; b < kBuffers; ++b) {
    double sum = 0;
    for (double r : rate[b]) sum += r;
    means.push_back(sum / kTurns);
    const Spread s = spread(rate[b]);
    widest_turns = std::max(widest_turns, s.high / s.low - 1);
    std::printf("regions %3u lanes %2d buffer %2d at %p: %.2f atomics/ns (turns %.2f-%.2f)\n", regions, lanes, b,
                static_cast<void*>(counters[b].data()), means.back(), s.low, s.high);
  }
  const Spread s = spread(means);
  std::printf(
      "regions %3u lanes %2d: buffers %.2f-%.2f atomics/ns, %.1f%% apart; one buffer's turns at most %.1f%% "
      "apart\n",
      regions, lanes, s.low, s.high, 100 * (s.high / s.low - 1), 100 * widest_turns);
  GPUBENCH_CUDA(cudaEventDestroy(start));
  GPUBENCH_CUDA(cudaEventDestroy(stop));
}

}  // namespace
}  // namespace gpubench

int main() {
  try {
    std::printf("device %s\n", gpubench::GpuSession::get().device().name.c_str());
    for (int lanes : {1, 32})
      for (unsigned regions : {1u, 8u, 32u}) gpubench::probe(regions, lanes);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "atomics placement probe: %s\n", e.what());
    return 1;
  }
}
