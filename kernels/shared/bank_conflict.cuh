// Shared-memory access patterns: every lane of a warp reads, again and again, the element of a
// shared array the host chose for it (a word stride, a wide access, a tile column in some layout),
// so the wavefronts one warp-wide load needs are the pattern's, and nothing else. Elements are
// 4, 8 or 16 bytes (float, float2, float4: LDS, LDS.64, LDS.128).
#pragma once

#include "common/clocks.h"
#include "common/warp.h"

namespace gpubench::kernels {

inline constexpr int kSharedPatternWords = 4096;  // 16 KiB: lane 31 at a stride of 32 16-byte elements fits

// The element each lane reads, in units of the element type.
struct LaneElements {
  int index[kWarpSize];
};

__device__ __forceinline__ float shared_load(unsigned address, float) {
  float v;
  asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(address));
  return v;
}
__device__ __forceinline__ float shared_load(unsigned address, float2) {
  float2 v;
  asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(address));
  return v.x + v.y;
}
__device__ __forceinline__ float shared_load(unsigned address, float4) {
  float4 v;
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address));
  return (v.x + v.y) + (v.z + v.w);
}

// Word i of the array holds i. Launch with blocks of whole warps; out[thread] gets the sum of the
// `loads` reads (a multiple of 4) of that lane's element. The span covers the whole block, so
// with many warps it measures the shared-memory pipe's throughput: wavefronts per cycle.
template <class T>
static __global__ void shared_pattern(float* out, LaneElements lanes, int loads, Clocks clocks) {
  __shared__ float words[kSharedPatternWords];
  for (int i = threadIdx.x; i < kSharedPatternWords; i += blockDim.x) words[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const unsigned address =
      static_cast<unsigned>(__cvta_generic_to_shared(reinterpret_cast<const T*>(words) + lanes.index[lane]));
  // Four independent sums, so the add latency does not pace the loads.
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const Clocks::Stamp start = clocks.begin_block();
#pragma unroll 1
  for (int i = 0; i < loads; i += 4) {
#pragma unroll
    for (int j = 0; j < 4; ++j) sum[j] += shared_load(address, T{});
  }
  clocks.end_block(start);
  out[blockIdx.x * blockDim.x + threadIdx.x] = (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

}  // namespace gpubench::kernels
