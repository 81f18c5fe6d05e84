// The burn's verified GEMM (bench/compute/burn.cu): operands of small integers, so that the exact product is known
// whatever order the tensor cores sum in (every partial sum is an integer far inside FP32's 24 bits), and a check of
// each product against the first, word by word. A mismatch is counted and the first few recorded, as the memory
// test records its own (MemtestErrors).
#pragma once

#include "kernels/memory/memtest.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

// An operand's element at `index` (column-major) for `seed`: an integer in [-2, 2], the same on host and device.
__host__ __device__ inline int burn_operand(std::uint64_t index, std::uint64_t seed) {
  return static_cast<int>(memtest_word(index, seed, kRandom) % 5u) - 2;
}

static __global__ void burn_fill(__half* values, std::size_t count, std::uint64_t seed) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    values[i] = __int2half_rn(burn_operand(i, seed));
}

// Counts the words of `got` that differ from `want` (bit for bit), recording the first kMemtestRecorded.
static __global__ void burn_compare(const std::uint32_t* got, const std::uint32_t* want, std::size_t count,
                                    MemtestErrors* errors) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::uint32_t read = got[i];
    const std::uint32_t expected = want[i];
    if (read != expected) record_mismatch(errors, i, expected, read);
  }
}

// values[indices[i]] into out[i]: the elements the host checks against its own sums.
static __global__ void burn_gather(const float* values, const std::uint64_t* indices, int count, float* out) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) out[i] = values[indices[i]];
}

}  // namespace gpubench::kernels
