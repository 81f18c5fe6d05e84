// Vector normalisation (the seed course homework): n vectors of DL floats, out = in - mean(vector).
// base: one thread per vector. grouped: G consecutive lanes per vector, each summing DL / G elements,
// then a butterfly of shuffles for the group's sum. Unrolled by U: each warp loads U vectors' worth
// before the group sums (the loads of U vectors in flight at once), the U vectors a compile-time
// stride apart (32 / G vectors), so a warp's unrolled loads stay contiguous.
#pragma once

#include "common/clocks.h"
#include "common/warp.h"

#include <cstddef>

namespace gpubench::kernels {

// One thread per vector, grid-stride.
template <int DL>
static __global__ void normalize_base(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                      Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t h = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; h < n; h += threads) {
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < DL; ++i) sum += in[h * DL + i];
    const float avg = sum / DL;
#pragma unroll
    for (int i = 0; i < DL; ++i) out[h * DL + i] = in[h * DL + i] - avg;
  }
  clocks.end(start);
}

// The sum over a group of G aligned lanes (G a power of two up to 32); every lane of the warp must call it.
template <int G>
__device__ __forceinline__ float group_sum(float value) {
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// G lanes per vector, U vectors per group and step. Launch with whole warps.
template <int DL, int G, int U>
static __global__ void normalize_grouped(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                         Clocks clocks) {
  static_assert(DL % G == 0 && G <= kWarpSize && (G & (G - 1)) == 0, "G: a power of two dividing DL");
  constexpr int kGroupsPerWarp = kWarpSize / G;
  constexpr int kVectorsPerWarpStep = kGroupsPerWarp * U;
  const Clocks::Stamp start = clocks.begin();
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int group = lane / G;  // the lane's group in its warp
  const int sub = lane % G;    // its place in the group
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kWarpSize;
  for (std::size_t first = warp * kVectorsPerWarpStep; first < n; first += warps * kVectorsPerWarpStep) {
    float thread_sum[U];
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const std::size_t h = first + static_cast<std::size_t>(j) * kGroupsPerWarp + group;  // j apart: a constant
      thread_sum[j] = 0.0f;
      if (h < n) {
#pragma unroll
        for (int i = sub; i < DL; i += G) thread_sum[j] += in[h * DL + i];
      }
    }
    float avg[U];
#pragma unroll
    for (int j = 0; j < U; ++j) avg[j] = group_sum<G>(thread_sum[j]) / DL;
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const std::size_t h = first + static_cast<std::size_t>(j) * kGroupsPerWarp + group;
      if (h < n) {
#pragma unroll
        for (int i = sub; i < DL; i += G) out[h * DL + i] = in[h * DL + i] - avg[j];
      }
    }
  }
  clocks.end(start);
}

}  // namespace gpubench::kernels
