// Every chase variant ends where the host's chase of the same chain ends, and continues from there;
// the device layout of a chain is the host's.
#include "bench/memory/chase/device_chain.cuh"
#include "bench/memory/chase/pointer_chain.h"
#include "common/device_memory.h"
#include "kernels/memory/pointer_chase.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpubench {
namespace {

TEST(DeviceChainLayout, MatchesTheHostLayout) {
  GPUBENCH_REQUIRE_GPU();
  const DeviceChain single(64 << 10, 128, 4, 1, nullptr);
  const std::vector<std::uint32_t> host = chase_words(single.host());
  std::vector<std::uint32_t> device(host.size());
  GPUBENCH_CUDA(cudaMemcpy(device.data(), single.words(), host.size() * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(device, host);

  const DeviceChain per_lane(16 << 10, 128, 4, 32, nullptr);
  std::vector<std::uint32_t> lanes(per_lane.host().word_count());
  GPUBENCH_CUDA(cudaMemcpy(lanes.data(), per_lane.words(), lanes.size() * 4, cudaMemcpyDeviceToHost));
  for (std::size_t w = 0; w < lanes.size(); ++w)
    ASSERT_EQ(lanes[w], per_lane.host().next[w / 32] * 32u) << "word " << w << " of a warp-wide node";
}

template <kernels::LoadPath Path>
void check_global_chase(const char* name) {
  DeviceChain chain(64 << 10, 128, 4, 1, nullptr);
  DeviceBuffer<CycleSpan> span(1);
  span.fill_bytes(0);
  kernels::pointer_chase<Path><<<1, 1>>>(chain.words(), chain.position(), 100, 1000, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_position(1100)) << name;
  kernels::pointer_chase<Path><<<1, 1>>>(chain.words(), chain.position(), 0, 777, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_position(1877)) << name << ", second launch";
  const CycleSpan stamps = span.download().front();
  EXPECT_GT(stamps.stop_clock, stamps.start_clock) << name;
}

TEST(PointerChaseKernel, GlobalChasesEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  check_global_chase<kernels::LoadPath::kCached>("ld.ca");
  check_global_chase<kernels::LoadPath::kL2Only>("ld.cg");
  check_global_chase<kernels::LoadPath::kVolatile>("ld.cv");
}

TEST(PointerChaseKernel, NodeIndexedChaseEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  constexpr unsigned kStride = 64 << 10;  // page-like stride, indices count nodes
  DeviceChain chain(std::size_t{64} << 20, kStride, kStride, 1, nullptr);
  kernels::pointer_chase<kernels::LoadPath::kL2Only, kStride>
      <<<1, 1>>>(chain.words(), chain.position(), 1000, 3000, Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_position(4000));
}

TEST(PointerChaseKernel, SharedChaseEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  DeviceChain chain(16 << 10, 32, 4, 1, nullptr);
  DeviceBuffer<CycleSpan> span(1);
  const auto words = static_cast<std::uint32_t>(chain.host().word_count());
  kernels::pointer_chase_shared<<<1, 128, words * 4>>>(chain.words(), words, chain.position(), 50, 2000,
                                                       Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_position(2050));
}

template <kernels::LoadPath Path>
void check_direct_chase(const char* name) {
  const DirectChain chain(64 << 10, 128, nullptr);
  DeviceBuffer<CycleSpan> span(1);
  span.fill_bytes(0);
  kernels::pointer_chase_direct<Path><<<1, 1>>>(chain.position(), 100, 1000, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_walked(chain.position_buffer(), 0, 1100)) << name;
  EXPECT_GE(chain.last_sm(), 0) << name;
  EXPECT_GT(span.download().front().stop_clock, 0u) << name;
}

TEST(PointerChaseKernel, DirectChasesEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  check_direct_chase<kernels::LoadPath::kCached>("ld.ca.u64");
  check_direct_chase<kernels::LoadPath::kL2Only>("ld.cg.u64");
}

TEST(PointerChaseKernel, DirectChaseRunsOnTheSmAskedForOncePerLaunch) {
  GPUBENCH_REQUIRE_GPU();
  int sms = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const DirectChain chain(16 << 10, 128, nullptr);
  unsigned long long launch = 0;
  std::size_t walked = 0;
  for (int target : {0, sms / 2, sms - 1}) {
    DeviceBuffer<CycleSpan> span(1);
    span.fill_bytes(0);
    // Two launches on each SM: a second chase in one launch would walk 2 x 300 loads.
    for (int again = 0; again < 2; ++again) {
      kernels::pointer_chase_direct<kernels::LoadPath::kCached>
          <<<2 * sms, 1>>>(chain.position(), 0, 296, Clocks{span.data()}, target, ++launch);
      GPUBENCH_CUDA_LAUNCHED();
      walked += 296;
      EXPECT_NO_THROW(chain.expect_walked(chain.position_buffer(), 0, walked)) << "SM " << target;
      EXPECT_EQ(chain.last_sm(), target);
    }
    EXPECT_GT(span.download().front().stop_clock, 0u) << "the chasing block records the span, SM " << target;
  }
}

// The sweep over SMs restarts the walk at place 0 after one SM reads every node: the chain is left
// as it was and the next chase, on that SM, walks from place 0.
TEST(PointerChaseKernel, TouchFromAnSmRestartsTheWalkAndLeavesTheChain) {
  GPUBENCH_REQUIRE_GPU();
  int sms = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  DirectChain chain(64 << 10, 128, nullptr);
  unsigned long long launch = 0;
  kernels::pointer_chase_direct<kernels::LoadPath::kL2Only>
      <<<2 * sms, 1>>>(chain.position(), 0, 200, Clocks{}, kernels::kAnySm, ++launch);
  GPUBENCH_CUDA_LAUNCHED();
  for (int target : {sms - 1, 0}) {
    chain.restart_touched_from(target, 2 * sms, ++launch);
    kernels::pointer_chase_direct<kernels::LoadPath::kL2Only>
        <<<2 * sms, 1>>>(chain.position(), 0, 296, Clocks{}, target, ++launch);
    GPUBENCH_CUDA_LAUNCHED();
    EXPECT_NO_THROW(chain.expect_walked(chain.position_buffer(), 0, 296)) << "SM " << target;
    EXPECT_EQ(chain.last_sm(), target);
  }
}

TEST(PointerChaseKernel, SharedDirectChaseEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  DeviceChain chain(16 << 10, 4, 4, 1, nullptr);
  const auto words = static_cast<std::uint32_t>(chain.host().word_count());
  kernels::pointer_chase_shared_direct<<<1, 128, words * 4>>>(chain.words(), words, chain.position(), 40, 2000,
                                                              Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  EXPECT_NO_THROW(chain.expect_position(2040));
}

TEST(PointerChaseKernel, ParallelChainsEachEndWhereTheHostSays) {
  GPUBENCH_REQUIRE_GPU();
  constexpr int kChains = 4;
  constexpr unsigned kBlocks = 3, kThreads = 64, kSteps = 50;
  const DeviceChain chain(1 << 20, 128, 4, 32, nullptr);
  const std::size_t count = kBlocks * kThreads / 32 * kChains;
  const std::size_t spacing = chain.host().nodes / count;
  std::vector<std::uint32_t> starts;
  for (std::size_t i = 0; i < count; ++i) starts.push_back(chain.value_at(i * spacing));
  DeviceBuffer<std::uint32_t> positions(count);
  positions.upload(starts);
  DeviceBuffer<CycleSpan> span(1);
  span.fill_bytes(0);
  kernels::parallel_chase<kChains><<<kBlocks, kThreads>>>(chain.words(), positions.data(), kSteps, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<std::uint32_t> ended = positions.download();
  for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(ended[i], chain.value_after(i * spacing, kSteps)) << "chain " << i;
  EXPECT_GT(span.download().front().stop_clock, 0u);
}

}  // namespace
}  // namespace gpubench
