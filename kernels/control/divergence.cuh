// Warp divergence: one warp whose lanes split over `paths` distinct code paths. Each path runs the
// same dependent chain of integer multiply-adds, so a warp that serializes its paths takes `paths`
// times as long as one that does not diverge.
#pragma once

#include "common/clocks.h"

#include <cstdint>
#include <utility>

namespace gpubench::kernels {

inline constexpr int kMaxDivergencePaths = 32;
inline constexpr int kDivergenceStepsPerRound = 16;
inline constexpr std::uint32_t kDivergenceMultiplier = 0x2545F491u;  // odd: the chain never collapses

__host__ __device__ constexpr std::uint32_t divergence_seed(int lane) {
  return 0x9E3779B9u * static_cast<std::uint32_t>(lane + 1);
}

// The addend of path p: never 0, because ptxas folds a chain of pure multiplies (x * M^16 in one
// IMAD; seen in the SASS), which would make that path 16 times cheaper than the others.
__host__ __device__ constexpr std::uint32_t divergence_addend(int path) {
  return static_cast<std::uint32_t>(path) + 1u;
}

// x = x * M + addend. The addend is an immediate inside the asm, so no two paths share an
// instruction that the compiler could hoist, sink or merge; volatile keeps every step in order.
template <int Path>
__device__ __forceinline__ std::uint32_t divergence_step(std::uint32_t x) {
  asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "n"(kDivergenceMultiplier), "n"(divergence_addend(Path)));
  return x;
}

template <int Path>
__device__ __forceinline__ std::uint32_t divergence_chain(std::uint32_t x, int rounds) {
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int i = 0; i < kDivergenceStepsPerRound; ++i) x = divergence_step<Path>(x);
  }
  return x;
}

// One branch per path; lanes whose path differs are masked off while each branch runs.
template <int... Paths>
__device__ __forceinline__ std::uint32_t divergence_dispatch(int path, std::uint32_t x, int rounds,
                                                             std::integer_sequence<int, Paths...>) {
  ((path == Paths ? (x = divergence_chain<Paths>(x, rounds), 0) : 0), ...);
  return x;
}

// Launch with one warp. Lane l takes path l % paths (1 <= paths <= 32) and writes its chain's result.
static __global__ void divergence(std::uint32_t* out, int paths, int rounds, Clocks clocks) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::uint32_t seed = divergence_seed(lane);
  int path = lane % paths;
  asm volatile("" : "+r"(path));  // the division happens here, outside the timed span
  __syncwarp();
  const Clocks::Stamp start = clocks.begin();
  const std::uint32_t x =
      divergence_dispatch(path, seed, rounds, std::make_integer_sequence<int, kMaxDivergencePaths>{});
  __syncwarp();
  clocks.end(start);
  out[threadIdx.x] = x;
}

// Two halves of the warp on two branches whose code is identical: does the compiler merge them
// (one pass, as if not divergent) or keep both (two passes)? The SASS answers; the cycles show it.
static __global__ void divergence_identical_branches(std::uint32_t* out, int rounds, Clocks clocks) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  std::uint32_t x = divergence_seed(lane);
  __syncwarp();
  const Clocks::Stamp start = clocks.begin();
  if (lane & 1)
    x = divergence_chain<0>(x, rounds);
  else
    x = divergence_chain<0>(x, rounds);
  __syncwarp();
  clocks.end(start);
  out[threadIdx.x] = x;
}

}  // namespace gpubench::kernels
