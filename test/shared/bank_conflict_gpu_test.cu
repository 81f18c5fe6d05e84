#include "common/device_memory.h"
#include "kernels/shared/bank_conflict.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpubench {
namespace {

TEST(SharedBankConflictKernel, EachLaneSumsItsOwnWord) {
  GPUBENCH_REQUIRE_GPU();
  constexpr int kLoads = 100;  // small enough that float sums stay exact
  for (int ways : {1, 2, 3, 4, 8, 16, 32}) {
    DeviceBuffer<float> out(64);
    out.fill_bytes(0xFF);
    DeviceBuffer<CycleSpan> span(1);
    kernels::shared_bank_conflict<<<2, 32>>>(out.data(), ways, kLoads, Clocks{span.data()});
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<float> sums = out.download();
    for (int thread = 0; thread < 64; ++thread) {
      const int word = ((thread % 32) * ways) % kernels::kBankConflictWords;
      ASSERT_EQ(sums[thread], static_cast<float>(word) * kLoads) << ways << " ways, thread " << thread;
    }
  }
}

}  // namespace
}  // namespace gpubench
