#include "common/device_memory.h"
#include "kernels/memory/stream_copy.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace gpubench {
namespace {

TEST(StreamCopyKernel, CopiesEveryVectorAtEdgeSizes) {
  GPUBENCH_REQUIRE_GPU();
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> value(-1e3f, 1e3f);
  for (std::size_t count : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{255}, std::size_t{257},
                            std::size_t{100003}}) {
    std::vector<float4> input(count);
    for (float4& v : input) v = make_float4(value(rng), value(rng), value(rng), value(rng));
    DeviceBuffer<float4> in(count), out(count);
    in.upload(input);
    out.fill_bytes(0xFF);  // poison: NaN everywhere an element is not written
    DeviceBuffer<CycleSpan> span(1);
    kernels::stream_copy<<<3, 128>>>(in.data(), out.data(), count, Clocks{span.data()});
    GPUBENCH_CUDA_LAUNCHED();
    const std::vector<float4> copied = out.download();
    EXPECT_EQ(std::memcmp(copied.data(), input.data(), count * sizeof(float4)), 0) << count << " vectors";
  }
}

}  // namespace
}  // namespace gpubench
