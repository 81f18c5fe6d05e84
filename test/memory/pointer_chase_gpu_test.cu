// Every chase variant ends where the host's chase of the same chain ends, and continues from there.
#include "common/device_memory.h"
#include "common/pointer_chain.h"
#include "kernels/memory/pointer_chase.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpubench {
namespace {

template <kernels::LoadPath Path>
void check_global_chase(const char* name) {
  const ChaseChain chain = make_chase_chain(64 << 10, 128, 11);
  DeviceBuffer<std::uint32_t> words(chain.words.size()), position(1);
  words.upload(chain.words);
  position.upload({0u});
  DeviceBuffer<CycleSpan> span(1);
  span.fill_bytes(0);
  kernels::pointer_chase<Path><<<1, 1>>>(words.data(), position.data(), 100, 1000, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  std::uint32_t want = chase(chain.words, 0, 1100);
  EXPECT_EQ(position.download().front(), want) << name;
  kernels::pointer_chase<Path><<<1, 1>>>(words.data(), position.data(), 0, 777, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_EQ(position.download().front(), chase(chain.words, want, 777)) << name << ", second launch";
  const CycleSpan stamps = span.download().front();
  EXPECT_GT(stamps.stop_clock, stamps.start_clock) << name;
}

TEST(PointerChaseKernel, GlobalChasesEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  check_global_chase<kernels::LoadPath::kCached>("ld.ca");
  check_global_chase<kernels::LoadPath::kL2Only>("ld.cg");
  check_global_chase<kernels::LoadPath::kVolatile>("ld.cv");
}

TEST(PointerChaseKernel, SharedChaseEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  const ChaseChain chain = make_chase_chain(16 << 10, 32, 5);
  DeviceBuffer<std::uint32_t> words(chain.words.size()), position(1);
  words.upload(chain.words);
  position.upload({0u});
  DeviceBuffer<CycleSpan> span(1);
  const std::size_t shared_bytes = chain.words.size() * sizeof(std::uint32_t);
  kernels::pointer_chase_shared<<<1, 128, shared_bytes>>>(words.data(), static_cast<std::uint32_t>(chain.words.size()),
                                                         position.data(), 50, 2000, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_EQ(position.download().front(), chase(chain.words, 0, 2050));
}

}  // namespace
}  // namespace gpubench
