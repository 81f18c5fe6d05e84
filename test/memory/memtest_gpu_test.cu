// The memory pattern test's kernels against the host: every word as the host computes it, a clean buffer with no
// wrong word, and a planted flipped bit found once, at its word, with its bit.
#include "common/device_memory.h"
#include "kernels/memory/memtest.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpubench {
namespace {

constexpr std::size_t kWords = std::size_t{1} << 20;

TEST(MemtestKernels, EveryWordIsThePatternTheHostComputes) {
  GPUBENCH_REQUIRE_GPU();
  DeviceBuffer<std::uint64_t> words(kWords);
  for (int pattern : {kernels::kOwnAddress, kernels::kRandom}) {
    kernels::memtest_fill<<<64, 256>>>(words.data(), kWords, 42, pattern);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<std::uint64_t> got = words.download();
    for (std::size_t i = 0; i < kWords; i += 4099) ASSERT_EQ(got[i], kernels::memtest_word(i, 42, pattern)) << i;
  }
  EXPECT_NE(kernels::memtest_word(1, 42, kernels::kRandom), kernels::memtest_word(2, 42, kernels::kRandom));
}

TEST(MemtestKernels, ACleanBufferHasNoWrongWordAndAFlippedBitIsNamed) {
  GPUBENCH_REQUIRE_GPU();
  DeviceBuffer<std::uint64_t> words(kWords);
  DeviceBuffer<kernels::MemtestErrors> errors(1);
  kernels::queue_memtest(words.data(), kWords, 7, 64, nullptr, errors.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(errors.download().front().count, 0u);
  kernels::queue_memtest(words.data(), kWords, 7, 64, nullptr, errors.data(), 12345, 37);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const kernels::MemtestErrors found = errors.download().front();
  ASSERT_EQ(found.count, 1u);  // read wrong once: the complement written over it is right again
  EXPECT_EQ(found.index[0], 12345u);
  EXPECT_EQ(found.expected[0] ^ found.read[0], std::uint64_t{1} << 37);
  EXPECT_EQ(found.expected[0], kernels::memtest_word(12345, 7, kernels::kOwnAddress));
}

}  // namespace
}  // namespace gpubench
