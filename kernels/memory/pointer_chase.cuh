// Pointer chase: one thread follows a shuffled single-cycle chain (common/pointer_chain.h), each
// load's address the previous load's value, so cycles per load are the latency of whatever level
// holds the working set. Load paths: .ca (L1 and L2), .cg (L2 only), .cv (no cached copy reused),
// and a chase inside shared memory.
#pragma once

#include "common/clocks.h"

#include <cstdint>

namespace gpubench::kernels {

enum class LoadPath { kCached, kL2Only, kVolatile };

template <LoadPath Path>
__device__ __forceinline__ std::uint32_t chase_load(const std::uint32_t* words, std::uint32_t at) {
  std::uint32_t next;
  if constexpr (Path == LoadPath::kCached)
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(next) : "l"(words + at));
  else if constexpr (Path == LoadPath::kL2Only)
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(next) : "l"(words + at));
  else
    asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(next) : "l"(words + at));
  return next;
}

// Launch <<<1, 1>>>. Continues from position[0], chases `warmup` untimed then `steps` timed loads,
// and stores where it stopped back into position[0], so consecutive launches walk the whole cycle.
template <LoadPath Path>
static __global__ void pointer_chase(const std::uint32_t* words, std::uint32_t* position, std::uint32_t warmup,
                                     std::uint32_t steps, Clocks clocks) {
  std::uint32_t at = position[0];
#pragma unroll 1
  for (std::uint32_t i = 0; i < warmup; ++i) at = chase_load<Path>(words, at);
  const Clocks::Stamp start = clocks.begin_after(at);
#pragma unroll 4
  for (std::uint32_t i = 0; i < steps; ++i) at = chase_load<Path>(words, at);
  clocks.end_after(start, at);
  position[0] = at;
}

// The same chase inside shared memory: the block copies the chain in (word_count words, dynamic
// shared memory), then thread 0 chases it from position[0].
static __global__ void pointer_chase_shared(const std::uint32_t* words, std::uint32_t word_count,
                                            std::uint32_t* position, std::uint32_t warmup, std::uint32_t steps,
                                            Clocks clocks) {
  extern __shared__ std::uint32_t shared_words[];
  for (std::uint32_t i = threadIdx.x; i < word_count; i += blockDim.x) shared_words[i] = words[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared_words));
  auto load = [base](std::uint32_t at) {
    std::uint32_t next;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(next) : "r"(base + at * 4u));
    return next;
  };
  std::uint32_t at = position[0];
#pragma unroll 1
  for (std::uint32_t i = 0; i < warmup; ++i) at = load(at);
  const Clocks::Stamp start = clocks.begin_after(at);
#pragma unroll 4
  for (std::uint32_t i = 0; i < steps; ++i) at = load(at);
  clocks.end_after(start, at);
  position[0] = at;
}

}  // namespace gpubench::kernels
