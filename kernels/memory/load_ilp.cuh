// The load juggler: each warp walks its own contiguous chunk of a large array (from DRAM: the
// fixture empties L2 before every launch) with kLoads independent loads in flight per thread. The
// values are used at the end of every step, so no more than kLoads loads per thread can be
// outstanding, and the step loop is not unrolled (that would add loads in flight). The element type
// sets the width of each load: unsigned (4 bytes), uint2 (8) or uint4 (16), so load-level
// parallelism and vector width are separate knobs.
#pragma once

#include "common/clocks.h"
#include "common/warp.h"

#include <cstddef>

namespace gpubench::kernels {

// What each thread computes from its words: h = h * 31 + word, words in a fixed order. Unlike a sum,
// the compiler may not reorder it, and a step starts it on its last load, so no value is used before
// every load of the step is issued and each keeps its own register (with a sum, ptxas reused the
// first load's register for the 15th of 16). The SASS now holds 16 distinct registers, and 16 loads
// in flight still move no more than 8 on an H100: that limit is the hardware's.
__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { return h * 31u + v; }
__device__ __forceinline__ unsigned mix(unsigned h, uint2 v) { return mix(mix(h, v.y), v.x); }
__device__ __forceinline__ unsigned mix(unsigned h, uint4 v) { return mix(mix(mix(mix(h, v.w), v.z), v.y), v.x); }

// One block of whole warps; warp w reads elements [w * per_warp, (w + 1) * per_warp) of `in`;
// out[thread] gets the mix of what that thread read (steps of kLoads elements, last first).
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
    for (int k = kLoads - 1; k >= 0; --k) sum = mix(sum, v[k]);
  }
#pragma unroll 1
  for (; i < per_warp; i += kWarpSize) sum = mix(sum, chunk[i]);  // the rest, one load at a time
  clocks.end_block(start);
  out[threadIdx.x] = sum;
}

}  // namespace gpubench::kernels
