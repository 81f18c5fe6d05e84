// The kernel's answer against the host's on a small input.
#include "saxpy.cuh"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

TEST(Saxpy, MatchesTheHost) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "needs a GPU";
  const std::size_t n = 100000;
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97);
    y[i] = static_cast<float>(i % 13);
  }
  float *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, n * sizeof(float)), cudaSuccess);
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<64, 256>>>(2.0f, dx, dy, n, NoStamps{});
  std::vector<float> got(n);
  ASSERT_EQ(cudaMemcpy(got.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.0f * x[i] + y[i]) << i;
  cudaFree(dx);
  cudaFree(dy);
}
