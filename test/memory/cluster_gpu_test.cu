// The cluster kernels read and write where they say: a chase in block `rank`'s shared memory ends
// where the host's chase of the same chain ends, for every rank of every cluster size the GPU runs
// (one block per SM, so every block sits on its own SM); the bandwidth kernel reads exactly the next
// block's words and its writes land in the next block's memory.
#include "bench/memory/chase/device_chain.cuh"
#include "bench/memory/cluster_launch.h"
#include "common/device_memory.h"
#include "kernels/memory/cluster.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace gpubench {
namespace {

using kernels::SharedWindow;

int device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

#define GPUBENCH_REQUIRE_CLUSTERS()                                                   \
  do {                                                                                \
    GPUBENCH_REQUIRE_GPU();                                                           \
    if (device_attribute(cudaDevAttrComputeCapabilityMajor) < 9)                      \
      GTEST_SKIP() << "thread-block clusters need sm_90 or newer; this GPU has none"; \
  } while (0)

// Dynamic shared memory for one block per SM (more than half an SM's), at least `at_least`.
template <class Kernel>
int one_per_sm_bytes(Kernel kernel, int at_least) {
  const int bytes = std::max(at_least, device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor) / 2 + 1);
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return bytes;
}

TEST(ClusterKernels, ChaseInEveryBlockOfEveryClusterSizeEndsWhereTheHostSays) {
  GPUBENCH_REQUIRE_CLUSTERS();
  constexpr int kThreads = 256;
  constexpr std::uint32_t kWarmup = 100, kSteps = 8 * kernels::kDirectUnroll;
  DeviceChain chain(32 << 10, 128, 4, 1, nullptr);
  const auto words = static_cast<std::uint32_t>(chain.host().word_count());
  std::vector<std::string> not_run;
  for (int size = 1; size <= 16; ++size) {
    const auto kernel =
        size == 1 ? kernels::dsmem_chase<SharedWindow::kBlock> : kernels::dsmem_chase<SharedWindow::kCluster>;
    const int shared = one_per_sm_bytes(kernel, 32 << 10);
    if (resident_clusters(kernel, size, kThreads, shared) == 0) {
      not_run.push_back(std::to_string(size));
      continue;
    }
    for (int rank = 0; rank < size; ++rank) {
      DeviceBuffer<std::uint32_t> position = chain.position_at(0);
      DeviceBuffer<std::uint32_t> sms(static_cast<std::size_t>(size));
      DeviceBuffer<CycleSpan> span(1);
      span.fill_bytes(0);
      launch_clusters(kernel, size, kThreads, shared, size, nullptr, chain.words(), words, position.data(),
                      static_cast<unsigned>(rank), kWarmup, kSteps, sms.data(), Clocks{span.data()});
      GPUBENCH_CUDA_LAUNCHED();
      EXPECT_NO_THROW(chain.expect_walked(position, 0, kWarmup + kSteps)) << "cluster " << size << ", rank " << rank;
      const std::vector<std::uint32_t> where = sms.download();
      EXPECT_EQ(std::set<std::uint32_t>(where.begin(), where.end()).size(), where.size())
          << "cluster of " << size << ": two blocks on one SM";
      const CycleSpan stamps = span.download().front();
      EXPECT_GT(stamps.stop_clock, stamps.start_clock);
    }
  }
  // H100: every size up to 16 fits; a GPU that refuses the non-portable sizes says so here.
  if (!not_run.empty()) {
    std::string sizes;
    for (const auto& s : not_run) sizes += " " + s;
    std::cout << "cluster sizes this GPU does not run with one block per SM:" << sizes << "\n";
    EXPECT_GT(std::stoi(not_run.front()), 8) << "portable cluster sizes (up to 8) must run";
  }
}

template <int Width, bool Write>
void check_stream(int size) {
  constexpr int kThreads = 128;
  constexpr std::uint32_t kBytes = 4096, kReps = 3;
  constexpr std::uint32_t kWords = kBytes / 4;
  const auto kernel = size == 1 ? kernels::dsmem_stream<Width, Write, SharedWindow::kBlock>
                                : kernels::dsmem_stream<Width, Write, SharedWindow::kCluster>;
  const int shared = one_per_sm_bytes(kernel, kBytes);
  const int blocks = 2 * size;  // two clusters
  DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(blocks) * std::max<std::uint32_t>(kThreads, kWords));
  out.fill_bytes(0xFF);
  launch_clusters(kernel, blocks, kThreads, shared, size, nullptr, out.data(), kBytes, kReps, Clocks{});
  GPUBENCH_CUDA_LAUNCHED();
  const std::vector<std::uint32_t> got = out.download();
  const std::string what =
      std::string(Write ? "write" : "read") + ", cluster " + std::to_string(size) + ", width " + std::to_string(Width);
  for (int block = 0; block < blocks; ++block) {
    const unsigned rank = static_cast<unsigned>(block % size);
    if constexpr (Write) {
      const unsigned writer = (rank + size - 1) % size;
      for (std::uint32_t i = 0; i < kWords; ++i)
        ASSERT_EQ(got[block * kWords + i], kernels::dsmem_word(writer, i) ^ 0x00800000u)
            << what << ": block " << block << ", word " << i;
    } else {
      const unsigned neighbour = (rank + 1) % size;
      for (int t = 0; t < kThreads; ++t) {
        std::uint32_t want = 0;
        for (std::uint32_t v = t; v < kBytes / Width; v += kThreads)
          for (std::uint32_t k = 0; k < Width / 4; ++k) want += kernels::dsmem_word(neighbour, v * (Width / 4) + k);
        ASSERT_EQ(got[block * kThreads + t], want * kReps) << what << ": block " << block << ", thread " << t;
      }
    }
  }
}

TEST(ClusterKernels, StreamReadsTheNextBlockAndWritesLandThere) {
  GPUBENCH_REQUIRE_CLUSTERS();
  for (int size : {1, 2, 3, 4, 8}) {
    check_stream<4, false>(size);
    check_stream<8, false>(size);
    check_stream<16, false>(size);
    check_stream<4, true>(size);
    check_stream<8, true>(size);
    check_stream<16, true>(size);
  }
}

}  // namespace
}  // namespace gpubench
