#include "common/device_memory.h"
#include "kernels/memory/cache_bandwidth.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

namespace gpubench {
namespace {

// Slices smaller than the block, not multiples of it, and loads per thread that are not multiples
// of the unrolled step.
template <bool kBypassL1>
void check_cache_read() {
  constexpr int kBlocks = 3;
  constexpr int kReps = 3;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> value(0, 7);
  for (unsigned slice : {1u, 1000u, 1024u, 4097u, 9000u}) {
    std::vector<float> words(std::size_t{slice} * kBlocks * 4);
    for (float& w : words) w = static_cast<float>(value(rng));
    DeviceBuffer<float4> data(std::size_t{slice} * kBlocks);
    data.upload(std::vector<float4>(reinterpret_cast<const float4*>(words.data()),
                                    reinterpret_cast<const float4*>(words.data()) + std::size_t{slice} * kBlocks));
    DeviceBuffer<float> partial(kBlocks * kernels::kCacheReadThreads);
    partial.fill_bytes(0xFF);
    DeviceBuffer<CycleSpan> span(1);
    kernels::cache_read<kBypassL1>
        <<<kBlocks, kernels::kCacheReadThreads>>>(data.data(), slice, kReps, partial.data(), Clocks{span.data()});
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<float> sums = partial.download();
    EXPECT_EQ(std::accumulate(sums.begin(), sums.end(), 0.0), kReps * std::accumulate(words.begin(), words.end(), 0.0))
        << "slice of " << slice << " vectors";
  }
}

// Every block reads the one shared slice, each from its own starting point: each block's threads
// together read the whole slice kReps times.
TEST(CacheReadKernel, SharedSliceIsReadWholeByEveryBlock) {
  GPUBENCH_REQUIRE_GPU();
  constexpr int kBlocks = 5;
  constexpr int kReps = 3;
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> value(0, 7);
  for (unsigned slice : {1u, 1000u, 4097u, 9000u}) {
    std::vector<float> words(std::size_t{slice} * 4);
    for (float& w : words) w = static_cast<float>(value(rng));
    DeviceBuffer<float4> data(slice);
    data.upload(std::vector<float4>(reinterpret_cast<const float4*>(words.data()),
                                    reinterpret_cast<const float4*>(words.data()) + slice));
    DeviceBuffer<float> partial(kBlocks * kernels::kCacheReadThreads);
    partial.fill_bytes(0xFF);
    kernels::cache_read<true>
        <<<kBlocks, kernels::kCacheReadThreads>>>(data.data(), slice, kReps, partial.data(), Clocks{}, true);
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<float> sums = partial.download();
    const double whole = std::accumulate(words.begin(), words.end(), 0.0);
    for (int b = 0; b < kBlocks; ++b) {
      const auto block = sums.begin() + std::ptrdiff_t{b} * kernels::kCacheReadThreads;
      EXPECT_EQ(std::accumulate(block, block + kernels::kCacheReadThreads, 0.0), kReps * whole)
          << "block " << b << ", slice of " << slice << " vectors";
    }
  }
}

TEST(CacheReadKernel, ReadsEverySliceEveryRep) {
  GPUBENCH_REQUIRE_GPU();
  check_cache_read<false>();
}
TEST(CacheReadKernel, BypassingL1ReadsTheSame) {
  GPUBENCH_REQUIRE_GPU();
  check_cache_read<true>();
}

}  // namespace
}  // namespace gpubench
