// The same saxpy kernel (../saxpy.cuh) measured by NVIDIA's nvbench, for the side-by-side of
// docs/results/2026-11-27-your-kernel: cold L2 (nvbench's default, gpubench's too), the same sizes, nvbench's
// default stopping criterion (relative standard deviation, at least 0.5 s of samples). Not part of the example's
// build: .ci/device-package builds it against an nvbench compiled by .ci/build-nvbench.
#include <nvbench/nvbench.cuh>

#include "../saxpy.cuh"

#include <cuda_runtime_api.h>

void saxpy_nvbench(nvbench::state& state) {
  const std::size_t n = static_cast<std::size_t>(state.get_int64("MiB")) * (1 << 20) / sizeof(float);
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemset(y, 0, n * sizeof(float));
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int blocks = sms * 8;
  state.add_global_memory_reads<float>(2 * n);
  state.add_global_memory_writes<float>(n);
  state.exec(
      [&](nvbench::launch& launch) { saxpy<<<blocks, 256, 0, launch.get_stream()>>>(2.0f, x, y, n, NoStamps{}); });
  cudaFree(x);
  cudaFree(y);
}
NVBENCH_BENCH(saxpy_nvbench).add_int64_axis("MiB", {256, 1024});
