#include "common/device_memory.h"
#include "kernels/memory/strided_copy.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace gpubench {
namespace {

TEST(StridedCopyKernel, GathersEveryStrideThElement) {
  GPUBENCH_REQUIRE_GPU();
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int stride : {1, 2, 3, 8, 32}) {
    for (std::size_t count : {std::size_t{1}, std::size_t{33}, std::size_t{4099}}) {
      std::vector<float> input(count * static_cast<std::size_t>(stride));
      for (float& v : input) v = value(rng);
      DeviceBuffer<float> in(input.size()), out(count);
      in.upload(input);
      out.fill_bytes(0xFF);
      DeviceBuffer<CycleSpan> span(1);
      kernels::strided_copy<<<2, 64>>>(in.data(), out.data(), count, stride, Clocks{span.data()});
      GPUBENCH_CUDA_LAUNCHED();
      const std::vector<float> gathered = out.download();
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(gathered[i], input[i * static_cast<std::size_t>(stride)]) << "stride " << stride << " i " << i;
    }
  }
}

}  // namespace
}  // namespace gpubench
