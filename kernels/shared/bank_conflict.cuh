// Shared-memory bank conflicts: each lane of a warp loads word lane * ways of a shared array.
// With 32 banks of 4 bytes, ways = k (a power of two up to 32) puts k distinct words in each bank
// that is used: a k-way conflict, k wavefronts per load instead of one.
#pragma once

#include "common/clocks.h"
#include "common/warp.h"

namespace gpubench::kernels {

inline constexpr int kBankConflictWords = 32 * 32;

// Launch with blocks of whole warps. Every lane sums `loads` reads of its word and writes the sum.
// The span covers the whole block (between barriers), so with many warps it measures the shared-
// memory pipe's throughput: wavefronts per cycle, each k-way conflicted load costing k.
static __global__ void shared_bank_conflict(float* out, int ways, int loads, Clocks clocks) {
  __shared__ float words[kBankConflictWords];
  for (int i = threadIdx.x; i < kBankConflictWords; i += blockDim.x) words[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const volatile float* word = &words[(lane * ways) % kBankConflictWords];  // volatile: one LDS per read
  // Four independent sums, so the add latency does not pace the loads and the shared-memory
  // pipe is what the cycles measure. `loads` must be a multiple of 4.
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const Clocks::Stamp start = clocks.begin_block();
#pragma unroll 1
  for (int i = 0; i < loads; i += 4) {
#pragma unroll
    for (int j = 0; j < 4; ++j) sum[j] += *word;
  }
  clocks.end_block(start);
  out[blockIdx.x * blockDim.x + threadIdx.x] = (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

}  // namespace gpubench::kernels
