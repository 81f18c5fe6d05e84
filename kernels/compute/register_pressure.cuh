// Register pressure vs occupancy. Each thread keeps Live values alive in registers across a loop
// that streams through memory with one load in flight per warp (the add waits for it), so the
// bandwidth it reaches grows with the warps resident per SM, which the registers limit.
#pragma once

#include "common/clocks.h"

#include <cstddef>

namespace gpubench::kernels {

inline constexpr int kPressureBlock = 256;

template <int Live>
static __global__ void __launch_bounds__(kPressureBlock)
    register_pressure(const float* __restrict__ in, std::size_t count, float* __restrict__ out, Clocks clocks) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  float keep[Live];
#pragma unroll
  for (int k = 0; k < Live; ++k) keep[k] = in[(thread + static_cast<std::size_t>(k) * 7919) % count];
    // Pin every value here and again after the loop: the compiler can neither defer the loads past
    // the loop nor fold the values away, so all Live of them occupy registers during it.
#pragma unroll
  for (int k = 0; k < Live; ++k) asm volatile("" : "+f"(keep[k]));
  const Clocks::Stamp start = clocks.begin_block();
  float acc = 0.0f;
#pragma unroll 1
  for (std::size_t i = thread; i < count; i += stride) acc += in[i];
  clocks.end_block(start);
#pragma unroll
  for (int k = 0; k < Live; ++k) asm volatile("" : "+f"(keep[k]));
  float sum = acc;
#pragma unroll
  for (int k = 0; k < Live; ++k) sum += keep[k];
  out[thread] = sum;
}

// The seed notebook's pair, as written there but for the clock stamps (its "fat" kernel holds 128
// values alive through a read of the value 64 places away), to compare register counts on this GPU.
static __global__ void seed_lean(float* out, int n, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const int tid = threadIdx.x + blockIdx.x * blockDim.x;
  if (tid < n) out[tid] = tid * 1.0f + 10.0f;
  clocks.end(start);
}

static __global__ void seed_fat(float* out, int n, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const int tid = threadIdx.x + blockIdx.x * blockDim.x;
  if (tid >= n) {
    clocks.end(start);
    return;
  }
  float vals[128];
#pragma unroll
  for (int i = 0; i < 128; i++) vals[i] = tid * 0.0001f + i;
#pragma unroll
  for (int k = 0; k < 5; k++) {
#pragma unroll
    for (int i = 0; i < 128; i++) vals[i] += vals[(i + 64) % 128] * 0.001f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 128; i++) sum += vals[i];
  out[tid] = sum;
  clocks.end(start);
}

}  // namespace gpubench::kernels
