// The burn's kernels against the host: operands as the host computes them (small integers, both signs), two equal
// products with no wrong element, a changed element found at its place with both readings, rounds of the memory test
// that add their mismatches up when asked to keep them, and the elements the host checks gathered from their places.
#include "common/device_memory.h"
#include "kernels/compute/burn.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpubench {
namespace {

constexpr std::size_t kCount = std::size_t{1} << 20;

TEST(BurnKernels, OperandsAreTheSmallIntegersTheHostComputes) {
  GPUBENCH_REQUIRE_GPU();
  DeviceBuffer<__half> values(kCount);
  kernels::burn_fill<<<64, 256>>>(values.data(), kCount, 99);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<__half> got = values.download();
  int seen[5] = {};
  for (std::size_t i = 0; i < kCount; i += 13) {
    const int want = kernels::burn_operand(i, 99);
    ASSERT_GE(want, -2);
    ASSERT_LE(want, 2);
    ASSERT_EQ(__half2float(got[i]), static_cast<float>(want)) << i;
    ++seen[want + 2];
  }
  for (int count : seen) EXPECT_GT(count, 0);  // every value of [-2, 2] occurs
}

TEST(BurnKernels, EqualProductsHaveNoWrongElementAndAChangedOneIsNamed) {
  GPUBENCH_REQUIRE_GPU();
  std::vector<float> host(kCount);
  for (std::size_t i = 0; i < kCount; ++i) host[i] = static_cast<float>(static_cast<int>(i % 1001) - 500);
  DeviceBuffer<float> reference(kCount), product(kCount);
  reference.upload(host);
  product.upload(host);
  DeviceBuffer<kernels::MemtestErrors> errors(1);
  errors.fill_bytes(0);
  const auto compare = [&] {
    kernels::burn_compare<<<64, 256>>>(reinterpret_cast<const std::uint32_t*>(product.data()),
                                       reinterpret_cast<const std::uint32_t*>(reference.data()), kCount, errors.data());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  };
  compare();
  EXPECT_EQ(errors.download().front().count, 0u);
  kernels::memtest_flip<<<1, 1>>>(reinterpret_cast<std::uint64_t*>(product.data()), 4321, 35);  // float 8643's bit 3
  compare();
  const kernels::MemtestErrors found = errors.download().front();
  ASSERT_EQ(found.count, 1u);
  EXPECT_EQ(found.index[0], 8643u);
  EXPECT_EQ(found.expected[0] ^ found.read[0], 1u << 3);
}

TEST(BurnKernels, KeptErrorsAddUpOverRoundsOfTheMemoryTest) {
  GPUBENCH_REQUIRE_GPU();
  DeviceBuffer<std::uint64_t> words(kCount);
  DeviceBuffer<kernels::MemtestErrors> errors(1);
  kernels::queue_memtest(words.data(), kCount, 1, 64, nullptr, errors.data(), 77, 5);
  kernels::queue_memtest(words.data(), kCount, 2, 64, nullptr, errors.data(), 99, 6, true);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const kernels::MemtestErrors found = errors.download().front();
  ASSERT_EQ(found.count, 2u);
  EXPECT_EQ(found.index[0], 77u);
  EXPECT_EQ(found.index[1], 99u);
}

TEST(BurnKernels, GatherReadsTheElementsAtTheirPlaces) {
  GPUBENCH_REQUIRE_GPU();
  std::vector<float> host(kCount);
  for (std::size_t i = 0; i < kCount; ++i) host[i] = static_cast<float>(i);
  DeviceBuffer<float> values(kCount), out(3);
  values.upload(host);
  DeviceBuffer<std::uint64_t> places(3);
  places.upload({0, 777, kCount - 1});
  kernels::burn_gather<<<1, 32>>>(values.data(), places.data(), 3, out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.download(), (std::vector<float>{0.0f, 777.0f, static_cast<float>(kCount - 1)}));
}

}  // namespace
}  // namespace gpubench
