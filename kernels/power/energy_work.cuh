// Work whose energy the Energy rows measure: FMA chains (FP32, FP64) and reads from L2 and DRAM, each with
// zero or random data, so the energy of moving bits splits from the energy of issuing the work.
#pragma once

#include "common/clocks.h"

#include <cstdint>

namespace gpubench::kernels {

inline constexpr int kEnergyChains = 8;
inline constexpr int kEnergyUnroll = 4;

#if defined(__CUDACC__)
// A thread's random value in (-1, 1) for chain c (a hash of the thread and chain), or 0.
template <class T>
__device__ __forceinline__ T energy_operand(unsigned thread, unsigned c, unsigned salt, bool random) {
  if (!random) return T(0);
  unsigned h = thread * 0x9E3779B1u ^ (c + 1u) * 0x85EBCA77u ^ salt * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return T(static_cast<int>(h >> 8) - (1 << 23)) / T(1 << 23);  // (-1, 1)
}

// kEnergyChains independent chains x = x * a + b per thread, reps x kEnergyUnroll steps each. Random:
// a, b and x differ per thread and chain (|a| < 1, so x stays bounded), and the chains interleave in
// the pipe, so consecutive FMAs see different random operands; zero: every operand 0.
template <class T>
static __global__ void fma_work(T* out, std::uint32_t reps, bool random, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  T x[kEnergyChains], a[kEnergyChains], b[kEnergyChains];
#pragma unroll
  for (int c = 0; c < kEnergyChains; ++c) {
    a[c] = energy_operand<T>(thread, c, 1, random);
    b[c] = energy_operand<T>(thread, c, 2, random);
    x[c] = energy_operand<T>(thread, c, 3, random);
  }
#pragma unroll 1
  for (std::uint32_t r = 0; r < reps; ++r) {
#pragma unroll
    for (int u = 0; u < kEnergyUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kEnergyChains; ++c) x[c] = fma(x[c], a[c], b[c]);
    }
  }
  T sum = 0;
#pragma unroll
  for (int c = 0; c < kEnergyChains; ++c) sum += x[c];
  out[thread] = sum;
  clocks.end(start);
}

// Reads `vectors` 16-byte words grid-stride, `passes` times, XOR-folding them into out[thread].
static __global__ void read_work(const uint4* data, std::size_t vectors, std::uint32_t passes, std::uint32_t* out,
                                 Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t folded = 0;
#pragma unroll 1
  for (std::uint32_t p = 0; p < passes; ++p) {
#pragma unroll 4
    for (std::size_t i = first; i < vectors; i += step) {
      const uint4 v = __ldcg(data + i);
      folded ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  out[first] = folded;
  clocks.end(start);
}

// Word i of `words` becomes a hash of i (random) or 0.
static __global__ void fill_energy_words(std::uint32_t* words, std::size_t count, bool random) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ static_cast<std::uint32_t>(i >> 32) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    words[i] = random ? h : 0u;
  }
}
#endif

}  // namespace gpubench::kernels
