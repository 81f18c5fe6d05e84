// Read bandwidth by working set: every block re-reads its own slice `reps` times, so a slice that
// fits L1 is served by L1, one that fits L2 by L2, and a larger one by DRAM. Each thread owns the
// vectors threadIdx.x + m * blockDim.x of its block's slice and walks them round and round, issuing
// kCacheReadUnroll loads before it uses any (across the end of one pass into the next), so small
// slices are not latency-bound. Loads go through `asm volatile` (weak ld.global: ld.ca compiles to
// LDG.STRONG.SM, which halved the L1 rate on an H100) so repeated reads of the same addresses are
// not merged by the compiler. kBypassL1 uses ld.global.cg (cached in L2 only), which shows the L2
// plateau from the smallest working set on.
#pragma once

#include "common/clocks.h"

#include <cstddef>

namespace gpubench::kernels {

inline constexpr int kCacheReadThreads = 1024;  // two blocks fill an SM
inline constexpr int kCacheReadUnroll = 8;

template <bool kBypassL1>
__device__ __forceinline__ float4 load_for_bandwidth(const float4* p) {
  float4 v;
  if constexpr (kBypassL1)
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

// Block b reads data[b * slice_vectors, (b + 1) * slice_vectors) `reps` times and writes the sum
// of what each thread read to partial[thread] (the tests' reduction; it also keeps the loads alive).
// shared_slice: every block reads the same slice, data[0, slice_vectors), block b starting b/gridDim
// of the way into it, so the blocks spread over the slice instead of requesting the same lines at once.
template <bool kBypassL1>
static __global__ void __launch_bounds__(kCacheReadThreads, 2)
    cache_read(const float4* data, unsigned slice_vectors, int reps, float* partial, Clocks clocks,
               bool shared_slice = false) {
  const float4* first =
      data + (shared_slice ? std::size_t{0} : static_cast<std::size_t>(blockIdx.x) * slice_vectors) + threadIdx.x;
  // This thread's vectors per pass (0 where the slice is smaller than the block).
  const unsigned mine = threadIdx.x < slice_vectors ? (slice_vectors - threadIdx.x + blockDim.x - 1) / blockDim.x : 0;
  const unsigned long long loads = static_cast<unsigned long long>(mine) * static_cast<unsigned>(reps);
  // index of p among this thread's vectors
  unsigned m = shared_slice ? static_cast<unsigned>(static_cast<unsigned long long>(mine) * blockIdx.x / gridDim.x) : 0;
  const float4* p = first + static_cast<std::size_t>(m) * blockDim.x;
  float sum = 0.0f;
  const Clocks::Stamp start = clocks.begin();
  unsigned long long done = 0;
#pragma unroll 1
  for (; done + kCacheReadUnroll <= loads; done += kCacheReadUnroll) {
    float4 v[kCacheReadUnroll];
#pragma unroll
    for (int k = 0; k < kCacheReadUnroll; ++k) {
      v[k] = load_for_bandwidth<kBypassL1>(p);
      const bool wrap = ++m == mine;
      m = wrap ? 0 : m;
      p = wrap ? first : p + blockDim.x;
    }
#pragma unroll
    for (int k = 0; k < kCacheReadUnroll; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
#pragma unroll 1
  for (; done < loads; ++done) {  // the rest, one load at a time
    const float4 v = load_for_bandwidth<kBypassL1>(p);
    sum += (v.x + v.y) + (v.z + v.w);
    const bool wrap = ++m == mine;
    m = wrap ? 0 : m;
    p = wrap ? first : p + blockDim.x;
  }
  partial[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  clocks.end(start);
}

}  // namespace gpubench::kernels
