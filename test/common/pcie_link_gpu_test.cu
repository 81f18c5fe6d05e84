// The GPU's PCIe link as NVML reads it while copies run, and the host NUMA node sysfs gives it.
#include "common/pcie_link.h"
#include "test/gpu_test.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

namespace gpubench {
namespace {

TEST(PcieLinkGpu, UnderLoadItReadsATrainedLinkNoWiderThanItsMost) {
  GPUBENCH_REQUIRE_GPU();
  const std::size_t bytes = std::size_t{64} << 20;
  void* host = nullptr;
  void* gpu = nullptr;
  ASSERT_EQ(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&gpu, bytes), cudaSuccess);
  for (int i = 0; i < 16; ++i) ASSERT_EQ(cudaMemcpyAsync(gpu, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  const PcieLink link = pcie_link_now(0, /*under_load=*/true);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(gpu);
  cudaFreeHost(host);
  if (!link.unavailable.empty()) GTEST_SKIP() << "NVML: " << link.unavailable;
  EXPECT_GE(link.gen, 1);
  EXPECT_LE(link.gen, link.max_gen);
  EXPECT_GE(link.width, 1);
  EXPECT_LE(link.width, link.max_width);
  EXPECT_EQ(pcie_link_under_load(0).gen, link.gen);  // kept for the health record
  EXPECT_GE(numa_node_of(0), -1);
}

}  // namespace
}  // namespace gpubench
