// STREAM-style kernels: read, write, copy, scale and triad over 4-, 8- or 16-byte elements
// (float, float2, float4), every element touched once per launch, either grid-stride or in tiles
// that blocks claim from a counter. Each thread keeps kUnroll (4 or 8) independent loads in flight
// per step, so the bytes in flight per SM, not the loop, set the bandwidth. `read` writes one partial
// sum per thread (the reduction the tests check), so its loads cannot be removed.
#pragma once

#include "common/clocks.h"
#include "kernels/memory/work_claims.cuh"

#include <cstddef>

namespace gpubench::kernels {

enum class StreamOp { kRead, kWrite, kCopy, kScale, kTriad };

// Per-component arithmetic on the element types.
__device__ __forceinline__ float stream_sum(float v) { return v; }
__device__ __forceinline__ float stream_sum(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float stream_sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
// One dependent chain of float adds (which the compiler may not reorder), started on the last load
// of a step: no value can be used before every load of the step is issued, so each keeps its own
// register (with independent sums ptxas reused registers within a step of 8: 32 registers, now 44).
// On an H100 the read's bandwidth did not change: 4 loads in flight already saturate it.
__device__ __forceinline__ float stream_chain(float sum, float v) { return sum + v; }
__device__ __forceinline__ float stream_chain(float sum, float2 v) { return (sum + v.y) + v.x; }
__device__ __forceinline__ float stream_chain(float sum, float4 v) { return (((sum + v.w) + v.z) + v.y) + v.x; }
__device__ __forceinline__ float stream_axpy(float q, float x, float y) { return q * x + y; }
__device__ __forceinline__ float2 stream_axpy(float q, float2 x, float2 y) { return {q * x.x + y.x, q * x.y + y.y}; }
__device__ __forceinline__ float4 stream_axpy(float q, float4 x, float4 y) {
  return {q * x.x + y.x, q * x.y + y.y, q * x.z + y.z, q * x.w + y.w};
}
template <class T>
__device__ __forceinline__ T stream_splat(float q) {
  if constexpr (sizeof(T) == 4)
    return q;
  else if constexpr (sizeof(T) == 8)
    return {q, q};
  else
    return {q, q, q, q};
}

// Arrays: a and b are read, c is written. read: sums a into partial[thread]; write: c = q;
// copy: c = a; scale: c = q * a; triad: c = a + q * b.
// No __restrict__ on the inputs: with it they are read through the read-only path
// (LDG.E.128.CONSTANT), which read 92.4% of the H100's DRAM peak where CacheBandwidth's plain
// loads read 93-95%.
template <class T>
struct StreamArrays {
  const T* a;
  const T* b;
  T* c;
  float* __restrict__ partial;  // one per thread of the grid (read only)
};

template <StreamOp Op, class T>
__device__ __forceinline__ T stream_element(const StreamArrays<T>& s, std::size_t i, float q) {
  if constexpr (Op == StreamOp::kWrite)
    return stream_splat<T>(q);
  else if constexpr (Op == StreamOp::kCopy)
    return s.a[i];
  else if constexpr (Op == StreamOp::kScale)
    return stream_axpy(q, s.a[i], stream_splat<T>(0.0f));
  else
    return stream_axpy(q, s.b[i], s.a[i]);  // triad
}

// kUnroll elements at i, i + stride, ...: every load issued before any result is used.
template <StreamOp Op, class T, int kUnroll>
__device__ __forceinline__ void stream_step(const StreamArrays<T>& s, std::size_t i, std::size_t stride, float q,
                                            float& sum) {
  T v[kUnroll];
  if constexpr (Op == StreamOp::kRead) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = s.a[i + k * stride];
#pragma unroll
    for (int k = kUnroll - 1; k >= 0; --k) sum = stream_chain(sum, v[k]);
  } else {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = stream_element<Op>(s, i + k * stride, q);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) s.c[i + k * stride] = v[k];
  }
}

// Elements i, i + stride, ... below `end`, one at a time (the part that is not a whole step).
template <StreamOp Op, class T>
__device__ __forceinline__ void stream_rest(const StreamArrays<T>& s, std::size_t i, std::size_t end,
                                            std::size_t stride, float q, float& sum) {
  for (; i < end; i += stride) {
    if constexpr (Op == StreamOp::kRead)
      sum += stream_sum(s.a[i]);
    else
      s.c[i] = stream_element<Op>(s, i, q);
  }
}

// STREAM's own schedule: grid-stride, so every thread's share is fixed before the launch.
template <StreamOp Op, class T, int kUnroll = 4>
static __global__ void stream(StreamArrays<T> s, std::size_t count, float q, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t i = thread;
  float sum = 0.0f;
  for (; i + (kUnroll - 1) * stride < count; i += kUnroll * stride) stream_step<Op, T, kUnroll>(s, i, stride, q, sum);
  stream_rest<Op>(s, i, count, stride, q, sum);
  if constexpr (Op == StreamOp::kRead) s.partial[thread] = sum;
  clocks.end(start);
}

// The same work in tiles that each block claims when it is ready (work_claims.cuh): a tile is
// steps_per_tile steps of blockDim.x * kUnroll elements, a thread's k-th load of a step at
// step_start + thread + k * blockDim.x. Few claimers with large tiles: one address takes only so many
// atomics per second (about 250 million on an H200: 16 KiB tiles capped its read at 85% of peak),
// and the last tiles of a launch end at most one tile's time apart. The next tile is claimed while
// this one streams; one barrier per tile publishes it and frees the slot it overwrites.
template <StreamOp Op, class T, int kUnroll = 4>
static __global__ void stream_claimed(StreamArrays<T> s, std::size_t count, float q, unsigned steps_per_tile,
                                      WorkClaims* claims, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  __shared__ std::size_t claimed[2];
  const std::size_t step_elements = static_cast<std::size_t>(blockDim.x) * kUnroll;
  const std::size_t tile_elements = step_elements * steps_per_tile;
  const std::size_t tiles = (count + tile_elements - 1) / tile_elements;
  float sum = 0.0f;
  if (threadIdx.x == 0) claimed[0] = claim_tile(claims);
  __syncthreads();
  for (unsigned k = 0;; ++k) {
    const std::size_t tile = claimed[k & 1];
    if (tile >= tiles) break;  // the same tile in every thread: the whole block leaves together
    std::size_t next = 0;
    if (threadIdx.x == 0) next = claim_tile(claims);  // stored after the tile, so the loads need not wait for it
    const std::size_t end = (tile + 1) * tile_elements < count ? (tile + 1) * tile_elements : count;
    std::size_t i = tile * tile_elements + threadIdx.x;
    for (; i + (kUnroll - 1) * blockDim.x < end; i += step_elements)
      stream_step<Op, T, kUnroll>(s, i, blockDim.x, q, sum);
    stream_rest<Op>(s, i, end, blockDim.x, q, sum);
    if (threadIdx.x == 0) claimed[(k + 1) & 1] = next;
    __syncthreads();
  }
  if (threadIdx.x == 0) release_claims(claims, gridDim.x);
  if constexpr (Op == StreamOp::kRead) s.partial[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  clocks.end(start);
}

}  // namespace gpubench::kernels
