// Pointer chase: one thread follows a shuffled single-cycle chain (common/pointer_chain.h), each
// load's address the previous load's value, so cycles per load are the latency of whatever level
// holds the working set. Load paths: .ca (L1 and L2), .cg (L2 only), .cv (no cached copy reused),
// and a chase inside shared memory. MemoryParallelism runs many chains at once: whole warps, each
// lane loading one word of a 128-byte node, C chains per warp kept in registers.
#pragma once

#include "common/clocks.h"

#include <cstdint>

namespace gpubench::kernels {

enum class LoadPath { kCached, kL2Only, kVolatile };

// Lays a chain out in device memory: the word at node n (and the `copies` - 1 words after it) holds
// next[n] * value_scale: the next node's word index (scale = stride in words) or node index (1).
// One copy per lane lets a whole warp chase with one coalesced load.
static __global__ void place_chain_nodes(std::uint32_t* words, const std::uint32_t* next, std::size_t nodes,
                                         std::size_t stride_words, std::uint32_t value_scale, std::uint32_t copies) {
  const std::size_t total = nodes * copies;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t node = i / copies;
    words[node * stride_words + i % copies] = next[node] * value_scale;
  }
}

template <LoadPath Path>
__device__ __forceinline__ std::uint32_t chase_load(const std::uint32_t* address) {
  std::uint32_t next;
  if constexpr (Path == LoadPath::kCached)
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(next) : "l"(address));
  else if constexpr (Path == LoadPath::kL2Only)
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(next) : "l"(address));
  else
    asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(next) : "l"(address));
  return next;
}

inline constexpr int kAnySm = -1;

// Whether this block is the one that chases: any block when target_sm is kAnySm; otherwise the first
// block on target_sm to raise *claim to launch_id (launch enough one-thread blocks to reach every SM,
// 2 per SM, with a launch_id above every earlier one). An L2 hit's latency depends on the SM's
// distance to the L2 slice, so the SM is an argument, not luck.
__device__ __forceinline__ bool chases_here(int target_sm, unsigned long long* claim, unsigned long long launch_id) {
  return target_sm == kAnySm ||
         (sm_id() == static_cast<unsigned>(target_sm) && atomicMax(claim, launch_id) < launch_id);
}

// Launch <<<1, 1>>>, or pinned to an SM as chases_here() says. Continues from position[0], chases
// `warmup` untimed then `steps` timed loads, and stores where it stopped back into position[0], so
// consecutive launches walk the whole cycle; position[1] gets the SM it ran on, plus one.
// A value is an index in units of IndexBytes: 4 (word index) or the stride (node index, for sets
// beyond 2^32 words); either way one IMAD.WIDE turns it into an address. `Instance` only makes a
// separate kernel, so a function attribute set on one (the L1/shared carveout) leaves the other alone.
template <LoadPath Path, unsigned IndexBytes = 4, int Instance = 0>
static __global__ void pointer_chase(const std::uint32_t* words, std::uint32_t* position, std::uint32_t warmup,
                                     std::uint32_t steps, Clocks clocks, int target_sm = kAnySm,
                                     unsigned long long* claim = nullptr, unsigned long long launch_id = 0) {
  if (!chases_here(target_sm, claim, launch_id)) return;
  const char* base = reinterpret_cast<const char*>(words);
  auto address = [base](std::uint32_t at) {
    return reinterpret_cast<const std::uint32_t*>(base + static_cast<std::size_t>(at) * IndexBytes);
  };
  std::uint32_t at = position[0];
#pragma unroll 1
  for (std::uint32_t i = 0; i < warmup; ++i) at = chase_load<Path>(address(at));
  const Clocks::Stamp start = clocks.begin_after(at);
#pragma unroll 4
  for (std::uint32_t i = 0; i < steps; ++i) at = chase_load<Path>(address(at));
  clocks.end_after_here(start, at);  // the chasing block may be any block of a pinned launch
  position[0] = at;
  position[1] = sm_id() + 1u;  // where the chase ran (a reading depends on the SM)
}

// Load-to-use chase: every node holds the 64-bit address of the next node, so a step is the load
// alone (no index-to-address arithmetic between loads, which the indexed chase above pays: an
// IMAD.WIDE per step). Lays the chain out: node n, at byte n * stride of `base`, gets the address of
// node next[n].
static __global__ void place_chain_addresses(char* base, const std::uint32_t* next, std::size_t nodes,
                                             std::size_t stride_bytes) {
  for (std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; n < nodes;
       n += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    *reinterpret_cast<std::uint64_t*>(base + n * stride_bytes) =
        reinterpret_cast<std::uint64_t>(base + static_cast<std::size_t>(next[n]) * stride_bytes);
}

// Loads between two unconditional branches of the timed loop: the branch (and its counter) issue in
// the loads' shadow, and the audit reads eight loads per iteration in the SASS.
inline constexpr std::uint32_t kDirectUnroll = 8;

template <LoadPath Path>
__device__ __forceinline__ std::uint64_t chase_load_direct(std::uint64_t address) {
  std::uint64_t next;
  if constexpr (Path == LoadPath::kCached)
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(address));
  else
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(address));
  return next;
}

// A direct chase's position block: [0] the walk's current address, [1] the last launch that claimed
// the chase (targeted launches), [2] the SM that chased, plus one.
inline constexpr std::size_t kDirectPositionWords = 3;

// Launch <<<1, 1>>>, or pinned to an SM as chases_here() says (the claim is position[1]). `warmup`
// untimed loads, then `steps` timed ones (a multiple of kDirectUnroll); the address reached is stored back.
template <LoadPath Path>
static __global__ void pointer_chase_direct(std::uint64_t* position, std::uint32_t warmup, std::uint32_t steps,
                                            Clocks clocks, int target_sm = kAnySm, unsigned long long launch_id = 0) {
  if (!chases_here(target_sm, reinterpret_cast<unsigned long long*>(&position[1]), launch_id)) return;
  position[2] = 1ull + sm_id();
  std::uint64_t at = position[0];
#pragma unroll 1
  for (std::uint32_t i = 0; i < warmup; ++i) at = chase_load_direct<Path>(at);
  const Clocks::Stamp start = clocks.begin_after(static_cast<unsigned>(at));
#pragma unroll 1
  for (std::uint32_t i = 0; i < steps; i += kDirectUnroll) {
#pragma unroll
    for (std::uint32_t j = 0; j < kDirectUnroll; ++j) at = chase_load_direct<Path>(at);
  }
  clocks.end_after_here(start, static_cast<unsigned>(at));
  position[0] = at;
}

// Reads every node once, in walk order from place 0, from the block on target_sm that wins the claim
// (as chases_here() says; launch pinned_blocks() blocks). A chase from place 0 then meets the nodes
// this SM touched longest ago: the state a whole walk of the cycle from this SM leaves (for a set
// past the near L2 partition, no near copies of far lines), reached at bandwidth, not one latency per
// node. `sink` is scratch, written only when a thread's XOR of what it read is 0 (keeps the loads live).
static __global__ void touch_in_walk_order(const char* base, const std::uint32_t* order, std::uint32_t nodes,
                                           std::size_t stride_bytes, int target_sm, unsigned long long* claim,
                                           unsigned long long launch_id, std::uint64_t* sink) {
  __shared__ bool mine;
  if (threadIdx.x == 0) mine = chases_here(target_sm, claim, launch_id);
  __syncthreads();
  if (!mine) return;
  std::uint64_t folded = 0;
  for (std::uint32_t i = threadIdx.x; i < nodes; i += blockDim.x)
    folded ^= __ldcg(reinterpret_cast<const unsigned long long*>(base + std::size_t{order[i]} * stride_bytes));
  if (folded == 0) *sink = folded;
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

// Load-to-use in shared memory: the block copies the chain in as shared-window addresses (word index
// w becomes base + 4 w), then thread 0 chases `at = *at` with no arithmetic between the loads.
// position[0] is a word index before and after, as for the indexed shared chase.
static __global__ void pointer_chase_shared_direct(const std::uint32_t* words, std::uint32_t word_count,
                                                   std::uint32_t* position, std::uint32_t warmup, std::uint32_t steps,
                                                   Clocks clocks) {
  extern __shared__ std::uint32_t shared_words[];
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared_words));
  for (std::uint32_t i = threadIdx.x; i < word_count; i += blockDim.x) shared_words[i] = base + 4u * words[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  auto load = [](std::uint32_t address) {
    std::uint32_t next;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(next) : "r"(address));
    return next;
  };
  std::uint32_t at = base + 4u * position[0];
#pragma unroll 1
  for (std::uint32_t i = 0; i < warmup; ++i) at = load(at);
  const Clocks::Stamp start = clocks.begin_after(at);
#pragma unroll 1
  for (std::uint32_t i = 0; i < steps; i += kDirectUnroll) {
#pragma unroll
    for (std::uint32_t j = 0; j < kDirectUnroll; ++j) at = load(at);
  }
  clocks.end_after(start, at);
  position[0] = (at - base) / 4u;
}

// Memory-level parallelism. Launch with whole warps; warp w of the grid follows `Chains` chains whose
// word positions are positions[w * Chains + c]. A step loads one 4-byte word per lane from each of the
// warp's current nodes (a full 128-byte line each, coalesced; every word of a node holds the next
// node's index), so each warp keeps `Chains` line loads in flight and each chain waits on its own.
// Positions are stored back, so the next launch walks on into lines not yet in cache.
template <int Chains>
static __global__ void parallel_chase(const std::uint32_t* words, std::uint32_t* positions, std::uint32_t steps,
                                      Clocks clocks) {
  const unsigned lane = threadIdx.x % 32u;
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32u;
  std::uint32_t at[Chains];
#pragma unroll
  for (int c = 0; c < Chains; ++c) at[c] = positions[warp * Chains + c];
  const Clocks::Stamp start = clocks.begin_block(static_cast<int>(at[0] | 1u));
#pragma unroll 1
  for (std::uint32_t step = 0; step < steps; ++step) {
#pragma unroll
    for (int c = 0; c < Chains; ++c)
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(at[c]) : "l"(words + at[c] + lane));
  }
  std::uint32_t last = 1u;  // the span ends once every chain's last load is in
#pragma unroll
  for (int c = 0; c < Chains; ++c) last |= at[c];
  clocks.end_block(start, static_cast<int>(last));
  if (lane == 0) {
#pragma unroll
    for (int c = 0; c < Chains; ++c) positions[warp * Chains + c] = at[c];
  }
}

}  // namespace gpubench::kernels
