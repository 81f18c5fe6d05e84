// Does where the counters land move the global atomicAdd rate? Times Atomics/global/red/warp with a
// counter per lane (the gpubench row whose identical runs differed by 6-8%) on several sets of counters
// held at once, each timed in turns so clock and heat drift fall on all of them alike: an allocation each,
// then sets 64 MiB and 1 GiB apart in one allocation. Not a test: a
// measurement for docs/experiments/atomics.md.
#include "common/cuda_check.h"
#include "common/detail/gpu_session.h"
#include "common/device_memory.h"
#include "kernels/memory/atomics.cuh"

#include <algorithm>
#include <cmath>
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

// The rate of each of kBuffers sets of counters, in turns: sets `step` bytes apart in one allocation, or
// one allocation each (step 0).
void probe(int lanes, std::size_t step) {
  GpuSession& session = GpuSession::get();
  const cudaStream_t stream = session.stream();
  const int blocks = session.device().sm_count * 8;
  const std::size_t threads = static_cast<std::size_t>(blocks) * kernels::kAtomicThreads;
  std::vector<DeviceBuffer<unsigned>> owned;
  std::vector<unsigned*> counters;
  if (step == 0) {
    for (int b = 0; b < kBuffers; ++b) {
      owned.emplace_back(threads);  // a counter per thread, as gpubench's set
      counters.push_back(owned.back().data());
    }
  } else {
    owned.emplace_back(kBuffers * step / sizeof(unsigned));
    for (int b = 0; b < kBuffers; ++b) counters.push_back(owned.back().data() + b * step / sizeof(unsigned));
  }
  for (unsigned* c : counters) GPUBENCH_CUDA(cudaMemsetAsync(c, 0, threads * sizeof(unsigned), stream));
  DeviceBuffer<unsigned> tickets(threads);
  cudaEvent_t start, stop;
  GPUBENCH_CUDA(cudaEventCreate(&start));
  GPUBENCH_CUDA(cudaEventCreate(&stop));
  const auto launch = [&](unsigned* c) {
    kernels::atomic_add_global<kernels::AtomicOp::kRed><<<blocks, kernels::kAtomicThreads, 0, stream>>>(
        c, tickets.data(), lanes, kernels::AtomicSharing::kPerWarp, kIterations, Clocks{});
    GPUBENCH_CUDA_LAUNCHED();
  };
  launch(counters[0]);                              // warm-up
  std::vector<std::vector<double>> rate(kBuffers);  // atomics per ns, one per turn
  for (int turn = 0; turn < kTurns; ++turn)
    for (int b = 0; b < kBuffers; ++b) {
      GPUBENCH_CUDA(cudaEventRecord(start, stream));
      for (int l = 0; l < kLaunchesPerTurn; ++l) launch(counters[b]);
      GPUBENCH_CUDA(cudaEventRecord(stop, stream));
      GPUBENCH_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
      rate[b].push_back(static_cast<double>(threads) * kIterations * kLaunchesPerTurn / (ms * 1e6));
    }
  char layout[64];
  std::snprintf(layout, sizeof layout, "lanes %2d step %5zu MiB", lanes, step >> 20);
  std::vector<double> means;
  double widest_turns = 0, sum = 0, squares = 0;
  for (int b = 0; b < kBuffers; ++b) {
    double total = 0;
    for (double r : rate[b]) total += r;
    means.push_back(total / kTurns);
    sum += means.back();
    squares += means.back() * means.back();
    const Spread s = spread(rate[b]);
    widest_turns = std::max(widest_turns, s.high / s.low - 1);
    std::printf("%s buffer %2d at %p: %.2f atomics/ns (turns %.2f-%.2f)\n", layout, b, static_cast<void*>(counters[b]),
                means.back(), s.low, s.high);
  }
  const double mean = sum / kBuffers, sd = std::sqrt((squares - kBuffers * mean * mean) / (kBuffers - 1));
  const Spread s = spread(means);
  std::printf("%s: buffers %.2f-%.2f atomics/ns, %.1f%% apart, sd %.2f%%; one buffer's turns at most %.1f%% apart\n",
              layout, s.low, s.high, 100 * (s.high / s.low - 1), 100 * sd / mean, 100 * widest_turns);
  GPUBENCH_CUDA(cudaEventDestroy(start));
  GPUBENCH_CUDA(cudaEventDestroy(stop));
}

}  // namespace
}  // namespace gpubench

int main() {
  try {
    std::printf("device %s\n", gpubench::GpuSession::get().device().name.c_str());
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    for (int lanes : {1, 32}) {
      gpubench::probe(lanes, 0);  // an allocation each: neighbouring 2 MiB pages
      for (std::size_t step : {64 * kMiB, 1024 * kMiB}) gpubench::probe(lanes, step);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "atomics placement probe: %s\n", e.what());
    return 1;
  }
}
