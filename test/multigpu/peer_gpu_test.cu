#include "bench/memory/chase/device_chain.cuh"
#include "bench/multigpu/peer_memory.h"
#include "common/device_memory.h"
#include "kernels/memory/pointer_chase.cuh"
#include "kernels/memory/stream.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace gpubench {
namespace {

// GPU 0 works on GPU 1's memory; both must exist and reach each other.
#define GPUBENCH_REQUIRE_TWO_GPUS()                                                                       \
  do {                                                                                                    \
    GPUBENCH_REQUIRE_GPU();                                                                               \
    if (cuda_device_count() < 2) GTEST_SKIP() << "needs two GPUs: this host has " << cuda_device_count(); \
    ScopedDevice on_first(0);                                                                             \
    if (!enable_peer_access(0, 1)) GTEST_SKIP() << "GPU 0 cannot access GPU 1's memory";                  \
  } while (0)

TEST(PeerKernels, ReadSumsAndWriteFillsThePeersMemory) {
  GPUBENCH_REQUIRE_TWO_GPUS();
  ScopedDevice on(0);
  constexpr std::size_t kCount = 100003;  // float4 elements, not a multiple of the grid
  std::vector<float> words(kCount * 4);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = static_cast<float>(i % 7);
  OwnedBuffer<float4> remote = owned_buffer<float4>(1, kCount, 0);
  remote->upload(std::vector<float4>(reinterpret_cast<const float4*>(words.data()),
                                     reinterpret_cast<const float4*>(words.data()) + kCount));
  DeviceBuffer<float> partial(3 * 128);
  DeviceBuffer<CycleSpan> span(1);
  kernels::StreamArrays<float4> arrays{remote->data(), remote->data(), remote->data(), partial.data()};
  kernels::stream<kernels::StreamOp::kRead, float4><<<3, 128>>>(arrays, kCount, 1.0f, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<float> sums = partial.download();
  EXPECT_EQ(std::accumulate(sums.begin(), sums.end(), 0.0), std::accumulate(words.begin(), words.end(), 0.0));

  kernels::stream<kernels::StreamOp::kWrite, float4><<<3, 128>>>(arrays, kCount, 5.0f, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  for (const float4& v : remote->download()) ASSERT_TRUE(v.x == 5.0f && v.y == 5.0f && v.z == 5.0f && v.w == 5.0f);
}

TEST(PeerKernels, CopiesArriveWhole) {
  GPUBENCH_REQUIRE_TWO_GPUS();
  ScopedDevice on(0);
  constexpr std::size_t kCount = 4097;
  std::vector<float4> host(kCount);
  for (std::size_t i = 0; i < kCount; ++i) host[i] = make_float4(i, i + 1.0f, -1.0f * i, 0.5f);
  OwnedBuffer<float4> local = owned_buffer<float4>(0, kCount, 0), remote = owned_buffer<float4>(1, kCount, 0xFF);
  local->upload(host);
  GPUBENCH_CUDA(cudaMemcpyPeer(remote->data(), 1, local->data(), 0, kCount * sizeof(float4)));
  const std::vector<float4> arrived = remote->download();
  for (std::size_t i = 0; i < kCount; ++i)
    ASSERT_TRUE(arrived[i].x == host[i].x && arrived[i].y == host[i].y && arrived[i].z == host[i].z &&
                arrived[i].w == host[i].w)
        << "element " << i;
}

TEST(PeerKernels, ChaseInThePeersMemoryEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_TWO_GPUS();
  ScopedDevice on(0);
  OnDevice<DirectChain> remote(1, std::size_t{1} << 20, 128, nullptr);
  DirectChain& chain = *remote;
  DeviceBuffer<std::uint64_t> position = chain.position_at(3);
  DeviceBuffer<CycleSpan> span(1);
  kernels::pointer_chase_direct<kernels::LoadPath::kCached><<<1, 1>>>(position.data(), 100, 1000, Clocks{span.data()});
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  EXPECT_NO_THROW(chain.expect_walked(position, 3, 1100));
}

}  // namespace
}  // namespace gpubench
