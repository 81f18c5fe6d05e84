#include "common/device_memory.h"
#include "kernels/memory/load_ilp.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gpubench {
namespace {

// Every thread's mix of the elements it read, for chunks that are not multiples of the step.
template <int kLoads, class T>
void check_load_ilp(int warps, std::size_t per_warp) {
  constexpr std::size_t kWords = sizeof(T) / sizeof(unsigned);
  std::vector<unsigned> words(per_warp * warps * kWords);
  std::iota(words.begin(), words.end(), 1u);
  DeviceBuffer<unsigned> in(words.size());
  in.upload(words);
  DeviceBuffer<unsigned> out(warps * 32);
  out.fill_bytes(0xFF);
  DeviceBuffer<CycleSpan> span(1);
  kernels::load_ilp<kLoads, T>
      <<<1, warps * 32>>>(reinterpret_cast<const T*>(in.data()), per_warp, out.data(), Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<unsigned> sums = out.download();
  // h = h * 31 + word: steps of kLoads elements taken last first, each element's words last first.
  const auto mix_element = [&](unsigned h, std::size_t element) {
    for (std::size_t w = kWords; w-- > 0;) h = h * 31u + words[element * kWords + w];
    return h;
  };
  for (int thread = 0; thread < warps * 32; ++thread) {
    unsigned expected = 0;
    const std::size_t first = static_cast<std::size_t>(thread / 32) * per_warp;
    std::size_t e = thread % 32;
    for (; e + (kLoads - 1) * 32 < per_warp; e += kLoads * 32)
      for (int k = kLoads - 1; k >= 0; --k) expected = mix_element(expected, first + e + k * 32);
    for (; e < per_warp; e += 32) expected = mix_element(expected, first + e);
    ASSERT_EQ(sums[thread], expected) << kLoads << " loads of " << sizeof(T) << " bytes, " << per_warp
                                      << " per warp, thread " << thread;
  }
}

TEST(LoadIlpKernel, EveryThreadMixesItsElementsInOrder) {
  GPUBENCH_REQUIRE_GPU();
  for (std::size_t per_warp :
       {std::size_t{1}, std::size_t{33}, std::size_t{511}, std::size_t{512}, std::size_t{2049}}) {
    check_load_ilp<1, unsigned>(2, per_warp);
    check_load_ilp<2, unsigned>(2, per_warp);
    check_load_ilp<4, unsigned>(3, per_warp);
    check_load_ilp<8, unsigned>(1, per_warp);
    check_load_ilp<16, unsigned>(2, per_warp);
    check_load_ilp<1, uint2>(2, per_warp);
    check_load_ilp<1, uint4>(2, per_warp);
  }
}

}  // namespace
}  // namespace gpubench
