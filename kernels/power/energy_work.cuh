// Work whose energy the Energy rows measure: FMA chains (FP16x2, FP32, FP64) and reads of 4-, 8- or 16-byte
// words from L2 and DRAM, each with zero or random data, so the energy of moving bits splits from the
// energy of issuing the work. (Tensor-core, L1, copy and normalisation rows reuse their families' kernels.)
#pragma once

#include "common/clocks.h"

#include <cuda_fp16.h>

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
template <>
__device__ __forceinline__ __half2 energy_operand<__half2>(unsigned thread, unsigned c, unsigned salt, bool random) {
  return __floats2half2_rn(energy_operand<float>(thread, c, salt, random),
                           energy_operand<float>(thread, c, salt + 16u, random));
}

__device__ __forceinline__ float energy_fma(float x, float a, float b) { return fmaf(x, a, b); }
__device__ __forceinline__ double energy_fma(double x, double a, double b) { return fma(x, a, b); }
__device__ __forceinline__ __half2 energy_fma(__half2 x, __half2 a, __half2 b) { return __hfma2(x, a, b); }

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
      for (int c = 0; c < kEnergyChains; ++c) x[c] = energy_fma(x[c], a[c], b[c]);
    }
  }
  T sum = x[0];
#pragma unroll
  for (int c = 1; c < kEnergyChains; ++c) sum = sum + x[c];
  out[thread] = sum;
  clocks.end(start);
}

__device__ __forceinline__ std::uint32_t energy_fold(unsigned v) { return v; }
__device__ __forceinline__ std::uint32_t energy_fold(uint2 v) { return v.x ^ v.y; }
__device__ __forceinline__ std::uint32_t energy_fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Reads `vectors` words of V (unsigned, uint2, uint4: 4, 8, 16 bytes) grid-stride with ld.global.cg,
// `passes` times, XOR-folding them into out[thread].
template <class V>
static __global__ void read_work(const V* data, std::size_t vectors, std::uint32_t passes, std::uint32_t* out,
                                 Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t folded = 0;
#pragma unroll 1
  for (std::uint32_t p = 0; p < passes; ++p) {
#pragma unroll 4
    for (std::size_t i = first; i < vectors; i += step) {
      folded ^= energy_fold(__ldcg(data + i));
    }
  }
  out[first] = folded;
  clocks.end(start);
}

// Word i of `words` becomes a hash of i (random), 0, or (as_floats) the float in (-1, 1) the hash gives.
static __global__ void fill_energy_words(std::uint32_t* words, std::size_t count, bool random, bool as_floats = false) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ static_cast<std::uint32_t>(i >> 32) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    const float value = static_cast<float>(static_cast<int>(h >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
    words[i] = !random ? 0u : as_floats ? __float_as_uint(value) : h;
  }
}
#endif

}  // namespace gpubench::kernels
