// The load juggler: each warp walks its own contiguous chunk of a large array (from DRAM: the
// fixture empties L2 before every launch) with kLoads independent loads in flight per thread. The
// sums are used at the end of every step, so no more than kLoads loads per thread can be
// outstanding, and the step loop is not unrolled (that would add loads in flight). The element type
// sets the width of each load: unsigned (4 bytes), uint2 (8) or uint4 (16), so load-level
// parallelism and vector width are separate knobs. Integer sums: exact, whatever the order.
#pragma once

#include "common/clocks.h"
#include "common/warp.h"

#include <cstddef>

namespace gpubench::kernels {

__device__ __forceinline__ unsigned word_sum(unsigned v) { return v; }
__device__ __forceinline__ unsigned word_sum(uint2 v) { return v.x + v.y; }
__device__ __forceinline__ unsigned word_sum(uint4 v) { return (v.x + v.y) + (v.z + v.w); }

// One block of whole warps; warp w reads elements [w * per_warp, (w + 1) * per_warp) of `in`;
// out[thread] gets the sum of what that thread read.
template <int kLoads, class T>
static __global__ void load_ilp(const T* __restrict__ in, std::size_t per_warp, unsigned* out, Clocks clocks) {
  const std::size_t warp = threadIdx.x / kWarpSize;
  const std::size_t lane = threadIdx.x % kWarpSize;
  const T* chunk = in + warp * per_warp;
  unsigned sum = 0;
  const Clocks::Stamp start = clocks.begin_block();
  std::size_t i = lane;
#pragma unroll 1
  for (; i + (kLoads - 1) * kWarpSize < per_warp; i += kLoads * kWarpSize) {
    T v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) v[k] = chunk[i + k * kWarpSize];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) sum += word_sum(v[k]);
  }
#pragma unroll 1
  for (; i < per_warp; i += kWarpSize) sum += word_sum(chunk[i]);  // the rest, one load at a time
  clocks.end_block(start);
  out[threadIdx.x] = sum;
}

}  // namespace gpubench::kernels
