// Shared-memory bank conflicts: each lane of a warp loads word lane * ways of a shared array.
// With 32 banks of 4 bytes, ways = k (a power of two up to 32) puts k distinct words in each bank
// that is used: a k-way conflict, k wavefronts per load instead of one.
#pragma once

#include "common/clocks.h"

namespace gpubench::kernels {

inline constexpr int kBankConflictWords = 32 * 32;

// Launch with blocks of whole warps. Every lane sums `loads` reads of its word and writes the sum.
static __global__ void shared_bank_conflict(float* out, int ways, int loads, Clocks clocks) {
  __shared__ float words[kBankConflictWords];
  for (int i = threadIdx.x; i < kBankConflictWords; i += blockDim.x) words[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const volatile float* word = &words[(lane * ways) % kBankConflictWords];  // volatile: one LDS per read
  float sum = 0.0f;
  const Clocks::Stamp start = clocks.begin();
#pragma unroll 8
  for (int i = 0; i < loads; ++i) sum += *word;
  __syncwarp();
  clocks.end(start);
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace gpubench::kernels
