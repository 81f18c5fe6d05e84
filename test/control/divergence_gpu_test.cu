// Divergence kernels against a host reference: every lane ran its own path's chain.
#include "common/detail/gpu_session.h"
#include "common/device_memory.h"
#include "kernels/control/divergence.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpubench {
namespace {

constexpr int kRounds = 3;

std::vector<std::uint32_t> expected_lanes(int paths, int rounds, bool all_on_path_zero) {
  std::vector<std::uint32_t> lanes(32);
  for (int lane = 0; lane < 32; ++lane) {
    const int path = all_on_path_zero ? 0 : lane % paths;
    const std::uint32_t addend = static_cast<std::uint32_t>(path) + 1u;  // path p adds p + 1
    std::uint32_t x = kernels::divergence_seed(lane);
    for (int step = 0; step < rounds * kernels::kDivergenceStepsPerRound; ++step)
      x = x * kernels::kDivergenceMultiplier + addend;
    lanes[lane] = x;
  }
  return lanes;
}

class DivergenceKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUBENCH_REQUIRE_GPU();
    out_ = DeviceBuffer<std::uint32_t>(32);
    span_ = DeviceBuffer<CycleSpan>(1);
    out_.fill_bytes(0xAB);  // poison: an unwritten lane cannot pass
    span_.fill_bytes(0);
  }
  DeviceBuffer<std::uint32_t> out_;
  DeviceBuffer<CycleSpan> span_;
};

TEST_F(DivergenceKernel, EveryLaneComputesItsOwnPathsChain) {
  for (int paths : {1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 32}) {
    out_.fill_bytes(0xAB);
    kernels::divergence<<<1, 32>>>(out_.data(), paths, kRounds, Clocks{span_.data()});
    GPUBENCH_CUDA_LAUNCHED();
    EXPECT_EQ(out_.download(), expected_lanes(paths, kRounds, false)) << paths << " paths";
  }
}

TEST_F(DivergenceKernel, IdenticalBranchesComputePathZeroOnEveryLane) {
  kernels::divergence_identical_branches<<<1, 32>>>(out_.data(), kRounds, Clocks{span_.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_EQ(out_.download(), expected_lanes(1, kRounds, true));
}

TEST_F(DivergenceKernel, ZeroRoundsLeavesTheSeed) {
  kernels::divergence<<<1, 32>>>(out_.data(), 32, 0, Clocks{span_.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_EQ(out_.download(), expected_lanes(32, 0, false));
}

TEST_F(DivergenceKernel, RecordsAForwardCycleSpan) {
  kernels::divergence<<<1, 32>>>(out_.data(), 4, kRounds, Clocks{span_.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const CycleSpan span = span_.download().front();
  EXPECT_GT(span.stop_clock, span.start_clock);
  EXPECT_GE(span.stop_ns, span.start_ns);
}

}  // namespace
}  // namespace gpubench
