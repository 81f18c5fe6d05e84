#include "bench/shared/bank_model.h"
#include "common/device_memory.h"
#include "kernels/shared/bank_conflict.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpubench {
namespace {

constexpr int kLoads = 100;  // small enough that float sums stay exact

// Each lane's sum: kLoads reads of the words its element covers (word i holds i).
template <class T>
void check(const kernels::LaneElements& lanes, const char* what) {
  constexpr int kWords = sizeof(T) / sizeof(float);
  DeviceBuffer<float> out(64);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  kernels::shared_pattern<T><<<2, 32>>>(out.data(), lanes, kLoads, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> sums = out.download();
  for (int thread = 0; thread < 64; ++thread) {
    float words = 0.0f;
    for (int w = 0; w < kWords; ++w) words += static_cast<float>(lanes.index[thread % 32] * kWords + w);
    ASSERT_EQ(sums[thread], words * kLoads) << what << ", " << sizeof(T) << "-byte elements, thread " << thread;
  }
}

kernels::LaneElements strided(int stride) {
  kernels::LaneElements lanes{};
  for (int lane = 0; lane < 32; ++lane) lanes.index[lane] = lane * stride;
  return lanes;
}

TEST(SharedPatternKernel, EachLaneReadsItsElementAtEveryStrideAndWidth) {
  GPUBENCH_REQUIRE_GPU();
  for (int stride : {1, 2, 3, 7, 16, 31, 32}) {
    check<float>(strided(stride), "stride");
    check<float2>(strided(stride), "stride");
    check<float4>(strided(stride), "stride");
  }
}

TEST(SharedPatternKernel, ReadsTileColumnsInEveryLayout) {
  GPUBENCH_REQUIRE_GPU();
  for (TileLayout layout : {TileLayout::kNaive, TileLayout::kPadded, TileLayout::kSwizzled}) {
    const std::vector<std::uint32_t> addresses = column_read_addresses(layout, 5);
    kernels::LaneElements lanes{};
    for (int lane = 0; lane < 32; ++lane) lanes.index[lane] = static_cast<int>(addresses[lane] / 4);
    check<float>(lanes, "tile column");
  }
}

}  // namespace
}  // namespace gpubench
