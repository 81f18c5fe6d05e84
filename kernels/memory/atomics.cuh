// Contended atomics: every thread adds 1 to one 32-bit counter, `iterations` times. `lanes_per_address`
// lanes of a warp share each counter (1: a counter per lane; 32: one for the whole warp). Per warp: each
// warp has 32 counters of its own; per GPU: every warp of the launch adds to the same 32 counters.
// Global atomics are carried out in L2; shared ones in the SM. `red` sends the add and gets nothing
// back (a histogram bin, an event count); `atom` returns the old value (a ticket, a queue slot).
#pragma once

#include "common/clocks.h"

namespace gpubench::kernels {

enum class AtomicOp { kRed, kAtom };
enum class AtomicSharing { kPerWarp, kPerGpu };

inline constexpr int kAtomicThreads = 256;
inline constexpr int kAtomicUnroll = 8;  // iterations must be a multiple of it

// Inline PTX rather than atomicAdd: nvcc may aggregate a warp's adds to one address into one
// (vote, popc, one atomic), which would time the aggregation, not the hardware.
template <AtomicOp Op>
__device__ __forceinline__ unsigned atomic_add_one_global(unsigned* counter) {
  unsigned old = 0;
  if constexpr (Op == AtomicOp::kRed)
    asm volatile("red.global.add.u32 [%0], %1;" ::"l"(counter), "r"(1u) : "memory");
  else
    asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(counter), "r"(1u) : "memory");
  return old;
}

template <AtomicOp Op>
__device__ __forceinline__ unsigned atomic_add_one_shared(unsigned counter) {
  unsigned old = 0;
  if constexpr (Op == AtomicOp::kRed)
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(counter), "r"(1u) : "memory");
  else
    asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(counter), "r"(1u) : "memory");
  return old;
}

// The counter this lane adds to, among its warp's 32 (0 .. 32 / lanes_per_address - 1).
__host__ __device__ constexpr unsigned atomic_word_of_lane(unsigned lane, int lanes_per_address) {
  return lane / static_cast<unsigned>(lanes_per_address);
}

// `tickets[thread]`: the sum of the old values this thread got back (0 for red). The sum over the
// threads of one counter is 0 + 1 + ... + (n - 1) for its n adds, whatever their order.
template <AtomicOp Op>
static __global__ void atomic_add_global(unsigned* counters, unsigned* tickets, int lanes_per_address,
                                         AtomicSharing sharing, int iterations, Clocks clocks) {
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned word = atomic_word_of_lane(threadIdx.x % 32, lanes_per_address);
  if (sharing == AtomicSharing::kPerWarp) word += thread / 32 * 32;
  unsigned* counter = counters + word;
  asm volatile("" : "+l"(counter));  // the address stays opaque: no lane provably shares it
  unsigned sum = 0;
  const Clocks::Stamp start = clocks.begin_block();
#pragma unroll 1
  for (int i = 0; i < iterations; i += kAtomicUnroll) {
#pragma unroll
    for (int u = 0; u < kAtomicUnroll; ++u) sum += atomic_add_one_global<Op>(counter);
  }
  clocks.end_block(start, static_cast<int>(sum | 1u));  // atom: ends once the last old value is back
  tickets[thread] = sum;
}

// Launch with kAtomicThreads threads a block. The block's counters start at 0 and are written to
// counters[block's threads] at the end, so the host can check every add arrived.
template <AtomicOp Op>
static __global__ void atomic_add_shared(unsigned* counters, unsigned* tickets, int lanes_per_address, int iterations,
                                         Clocks clocks) {
  __shared__ unsigned words[kAtomicThreads];
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  words[threadIdx.x] = 0;
  const unsigned word = threadIdx.x / 32 * 32 + atomic_word_of_lane(threadIdx.x % 32, lanes_per_address);
  unsigned counter = static_cast<unsigned>(__cvta_generic_to_shared(&words[word]));
  asm volatile("" : "+r"(counter));
  unsigned sum = 0;
  const Clocks::Stamp start = clocks.begin_block();  // its barrier also orders the zeroing before the adds
#pragma unroll 1
  for (int i = 0; i < iterations; i += kAtomicUnroll) {
#pragma unroll
    for (int u = 0; u < kAtomicUnroll; ++u) sum += atomic_add_one_shared<Op>(counter);
  }
  clocks.end_block(start, static_cast<int>(sum | 1u));  // and orders the adds before the copy out
  counters[thread] = words[threadIdx.x];
  tickets[thread] = sum;
}

}  // namespace gpubench::kernels
