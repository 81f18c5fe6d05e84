// y = a x + y: the kernel under test, shared by the benchmark and its test.
#pragma once

#include <cstddef>

// Grid-stride saxpy. `on_block_start`/`on_block_end` let the benchmark stamp clock64 (gpubench::Clocks) around the
// block's work; the test passes nothing.
template <class Stamps>
__global__ void saxpy(float a, const float* x, float* y, std::size_t n, Stamps stamps) {
  const auto start = stamps.begin_block();
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    y[i] = a * x[i] + y[i];
  stamps.end_block(start);
}

struct NoStamps {
  __device__ int begin_block() const { return 0; }
  __device__ void end_block(int) const {}
};
