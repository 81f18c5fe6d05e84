// An 8x8 matrix product held entirely in registers (the seed notebook's register-bank experiment),
// each multiply-add an `asm volatile` FFMA so the order written is the order issued:
//   kIjk:       C[i][j] accumulates over k innermost: 8-long dependent chains, latency-bound;
//   kKij:       k outermost: 64 independent accumulators between dependent FFMAs;
//   kKijSkewed: k outermost, j visited starting at i, so consecutive FFMAs pair other registers.
// All loops are fully unrolled: an array indexed at run time would live in local memory.
#pragma once

#include "common/clocks.h"

namespace gpubench::kernels {

inline constexpr int kMatmulN = 8;
inline constexpr int kMatmulFmas = kMatmulN * kMatmulN * kMatmulN;

enum class MatmulOrder { kIjk, kKij, kKijSkewed };

__device__ __forceinline__ void ffma(float& c, float a, float b) {
  asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(c) : "f"(a), "f"(b));
}

// Each thread reads its own A and B (64 floats each) from `in` at thread * 128, runs `reps`
// products accumulating into C, and writes C (64 floats) to out at thread * 64.
template <MatmulOrder Order>
static __global__ void register_matmul(const float* __restrict__ in, float* __restrict__ out, int reps, Clocks clocks) {
  constexpr int N = kMatmulN;
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  float a[N][N], b[N][N], c[N][N];
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      a[i][j] = in[thread * 2 * N * N + i * N + j];
      b[i][j] = in[thread * 2 * N * N + N * N + i * N + j];
      c[i][j] = 0.0f;
    }
  }
  __syncwarp();
  const Clocks::Stamp start = clocks.begin();
#pragma unroll 1
  for (int r = 0; r < reps; ++r) {
    if constexpr (Order == MatmulOrder::kIjk) {
#pragma unroll
      for (int i = 0; i < N; ++i)
#pragma unroll
        for (int j = 0; j < N; ++j)
#pragma unroll
          for (int k = 0; k < N; ++k) ffma(c[i][j], a[i][k], b[k][j]);
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k)
#pragma unroll
        for (int i = 0; i < N; ++i)
#pragma unroll
          for (int jj = 0; jj < N; ++jj) {
            const int j = Order == MatmulOrder::kKijSkewed ? (jj + i) % N : jj;
            ffma(c[i][j], a[i][k], b[k][j]);
          }
    }
  }
  __syncwarp();
  clocks.end(start);
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < N; ++j) out[thread * N * N + i * N + j] = c[i][j];
}

}  // namespace gpubench::kernels
