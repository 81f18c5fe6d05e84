// Read bandwidth by working set: every block re-reads its own slice `reps` times, so a slice that
// fits L1 is served by L1, one that fits L2 by L2, and a larger one by DRAM. Loads go through
// `asm volatile` so the repeated reads of the same addresses are not merged by the compiler; each
// thread keeps up to kCacheReadUnroll of them in flight. kBypassL1 uses ld.global.cg (cached in L2
// only), which shows the L2 plateau from the smallest working set on.
#pragma once

#include "common/clocks.h"

#include <cstddef>

namespace gpubench::kernels {

inline constexpr int kCacheReadThreads = 1024;  // two blocks fill an SM
inline constexpr int kCacheReadUnroll = 4;

template <bool kBypassL1>
__device__ __forceinline__ float4 load_for_bandwidth(const float4* p) {
  float4 v;
  if constexpr (kBypassL1)
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else
    asm volatile("ld.global.ca.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

// Block b reads data[b * slice_vectors, (b + 1) * slice_vectors) `reps` times and writes the sum
// of what it read to partial[thread] (the tests' reduction; it also keeps the loads alive).
template <bool kBypassL1>
static __global__ void __launch_bounds__(kCacheReadThreads, 2)
    cache_read(const float4* data, std::size_t slice_vectors, int reps, float* partial, Clocks clocks) {
  const float4* slice = data + static_cast<std::size_t>(blockIdx.x) * slice_vectors;
  const std::size_t step = blockDim.x;
  float sum = 0.0f;
  const Clocks::Stamp start = clocks.begin();
#pragma unroll 1
  for (int rep = 0; rep < reps; ++rep) {
#pragma unroll 1
    for (std::size_t i = threadIdx.x; i < slice_vectors; i += kCacheReadUnroll * step) {
      float4 v[kCacheReadUnroll];
#pragma unroll
      for (int k = 0; k < kCacheReadUnroll; ++k)
        v[k] = i + k * step < slice_vectors ? load_for_bandwidth<kBypassL1>(slice + i + k * step)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int k = 0; k < kCacheReadUnroll; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
  }
  partial[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  clocks.end(start);
}

}  // namespace gpubench::kernels
