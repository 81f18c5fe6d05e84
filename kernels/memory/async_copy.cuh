// Asynchronous copies into shared memory: Hopper's tensor memory accelerator (TMA: a tile named by a
// tensor map, cp.async.bulk.tensor; or a plain byte range, cp.async.bulk), completing on an mbarrier,
// and Ampere's per-thread cp.async (4, 8 or 16 bytes, through L1 with .ca or around it with .cg),
// beside the load and store through registers they replace. Latency chases: each copy's address
// depends on what the previous copy brought. Bandwidth kernels: many copies in flight on every SM.
// TMA kernels need sm_90 (they do nothing on older GPUs; the host checks first); cp.async sm_80.
#pragma once

#include "common/clocks.h"
#include "kernels/memory/mbarrier.cuh"
#include "kernels/memory/pointer_chase.cuh"

#include <cuda.h>  // CUtensorMap

#include <cstdint>

namespace gpubench::kernels {

// A TMA chase step: a tile through a tensor map, the same bytes as a 1-D bulk copy, or neither (the
// mbarrier arrive, wait and shared-memory load every TMA step also pays, with nothing copied).
enum class TmaStep { kTensor, kBulk, kBarrierOnly };

// How a copy-latency or copy-bandwidth kernel moves global data into shared memory.
enum class CopyVia { kLoadStoreCa, kLoadStoreCg, kCpAsyncCa, kCpAsyncCg };

// Rows of the tensor maps the TMA kernels use: 32 four-byte words (128 bytes) wide.
inline constexpr unsigned kTmaRowBytes = 128;
// The most stages tma_stream keeps in flight.
inline constexpr int kMaxTmaStages = 8;

#if defined(__CUDACC__)
namespace async_detail {

__device__ __forceinline__ unsigned aligned_128(unsigned address) { return (address + 127u) & ~127u; }

// Tile `tile` (rows tile * box_rows ... + box_rows) of the 2-D map into shared memory at `to`.
__device__ __forceinline__ void tensor_tile_load(unsigned to, const CUtensorMap* map, unsigned tile, unsigned box_rows,
                                                 unsigned barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(to),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(0), "r"(tile * box_rows), "r"(barrier)
      : "memory");
#endif
}

__device__ __forceinline__ void bulk_load(unsigned to, const void* from, unsigned bytes, unsigned barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(to),
               "l"(from), "r"(bytes), "r"(barrier)
               : "memory");
#endif
}

// A word of shared memory, read from memory: volatile, or ptxas forwards a shared store of the same
// address in the same thread to the load and the load-and-store chase loses its shared load.
__device__ __forceinline__ std::uint32_t shared_word(unsigned address) {
  std::uint32_t value;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(value) : "r"(address));
  return value;
}

// Width bytes from global memory into registers (.ca: through L1; .cg: L2 only) and from registers
// into shared memory: the path cp.async replaces.
template <CopyVia Via, int Width>
__device__ __forceinline__ uint4 load_vector(const void* from) {
  static_assert(Width == 4 || Width == 8 || Width == 16, "4-, 8- or 16-byte copies");
  uint4 v{0, 0, 0, 0};
  if constexpr (Width == 4) {
    if constexpr (Via == CopyVia::kLoadStoreCa)
      asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v.x) : "l"(from));
    else
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v.x) : "l"(from));
  } else if constexpr (Width == 8) {
    if constexpr (Via == CopyVia::kLoadStoreCa)
      asm volatile("ld.global.ca.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(from));
    else
      asm volatile("ld.global.cg.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(from));
  } else {
    if constexpr (Via == CopyVia::kLoadStoreCa)
      asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(from));
    else
      asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(from));
  }
  return v;
}

template <int Width>
__device__ __forceinline__ void store_vector(unsigned to, uint4 v) {
  if constexpr (Width == 4)
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(to), "r"(v.x) : "memory");
  else if constexpr (Width == 8)
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(to), "r"(v.x), "r"(v.y) : "memory");
  else
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(to), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// Width bytes from global `from` into shared `to`, as Via says; cp.async completes at the next wait.
template <CopyVia Via, int Width>
__device__ __forceinline__ void copy_to_shared(unsigned to, const void* from) {
  static_assert(Via != CopyVia::kCpAsyncCg || Width == 16, "cp.async.cg copies 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Via == CopyVia::kCpAsyncCa)
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(from), "n"(Width) : "memory");
  else if constexpr (Via == CopyVia::kCpAsyncCg)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(from) : "memory");
  else
    store_vector<Width>(to, load_vector<Via, Width>(from));
#endif
}

template <CopyVia Via>
constexpr bool is_cp_async = Via == CopyVia::kCpAsyncCa || Via == CopyVia::kCpAsyncCg;

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

// A one-thread chase: `warmup` untimed steps, then `steps` timed ones (the span waits for the last
// step's value); returns where the walk stopped.
template <class Step>
__device__ __forceinline__ std::uint32_t timed_chase(Step step, std::uint32_t at, std::uint32_t warmup,
                                                     std::uint32_t steps, Clocks clocks) {
#pragma unroll 1
  for (std::uint32_t i = 0; i < warmup; ++i) at = step(at);
  const Clocks::Stamp start = clocks.begin_after(at);
#pragma unroll 1
  for (std::uint32_t i = 0; i < steps; ++i) at = step(at);
  clocks.end_after_here(start, at);
  return at;
}

}  // namespace async_detail

// TMA latency: one thread chases tiles. The chain (DeviceChain, node-indexed: one node per tile of
// `tile_bytes`, whose first word is the next tile's index) is read a tile at a time into shared
// memory, and the next tile's coordinate is the first word of the one that landed: each step is
// arrive.expect_tx, the copy, the wait on the mbarrier and a shared load. kBarrierOnly copies nothing
// (the arrive completes the phase; the shared word is 0 and feeds the next step's barrier address and
// parity, so the steps still wait on each other). Launch pinned_blocks() one-thread blocks with
// tile_bytes + 128 bytes of dynamic shared memory; the block on target_sm that wins the claim chases
// (chases_here), `warmup` steps untimed, then `steps`. position[0]: tile index before and after;
// position[1]: the SM, plus one.
template <TmaStep Step>
static __global__ void tma_chase(const __grid_constant__ CUtensorMap map, const char* base, std::uint32_t tile_bytes,
                                 std::uint32_t box_rows, std::uint32_t* position, std::uint32_t warmup,
                                 std::uint32_t steps, Clocks clocks, int target_sm, unsigned long long* claim,
                                 unsigned long long launch_id) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char tile_memory[];
  __shared__ __align__(8) unsigned long long barrier_word;
  if (!chases_here(target_sm, claim, launch_id)) return;
  using namespace async_detail;
  const unsigned tile = aligned_128(mbarrier::shared_address(tile_memory));
  const unsigned barrier = mbarrier::shared_address(&barrier_word);
  mbarrier::init(barrier);
  mbarrier::fence_init();
  if constexpr (Step == TmaStep::kBarrierOnly) asm volatile("st.shared.u32 [%0], 0;" ::"r"(tile) : "memory");
  unsigned phase = 0;
  const auto step = [&](std::uint32_t at) {
    if constexpr (Step == TmaStep::kBarrierOnly) {
      mbarrier::arrive(barrier + 8u * at);
      mbarrier::wait(barrier + 8u * at, phase ^ at);
    } else {
      mbarrier::arrive_expecting(barrier, tile_bytes);
      if constexpr (Step == TmaStep::kTensor)
        tensor_tile_load(tile, &map, at, box_rows, barrier);
      else
        bulk_load(tile, base + static_cast<std::size_t>(at) * tile_bytes, tile_bytes, barrier);
      mbarrier::wait(barrier, phase);
    }
    phase ^= 1u;
    return shared_word(tile + 4u * (Step == TmaStep::kBarrierOnly ? at : 0u));
  };
  std::uint32_t at = Step == TmaStep::kBarrierOnly ? 0u : position[0];
  at = timed_chase(step, at, warmup, steps, clocks);
  if constexpr (Step != TmaStep::kBarrierOnly) position[0] = at;
  position[1] = sm_id() + 1u;
#endif
}

// TMA load bandwidth: thread 0 of every block streams tiles of the map (`tiles` tiles of box_rows
// rows) into `stages` shared-memory buffers, tile k of the block into stage k % stages, each stage
// reloaded as soon as its tile has landed, `passes` times over the block's tiles (block b: b, b +
// gridDim.x, ...). Nothing reads the tiles unless `sums` is given (tests): then thread 0 adds the
// first word of each landed tile into sums[blockIdx.x]. Dynamic shared memory: stages * tile bytes + 128.
static __global__ void tma_stream(const __grid_constant__ CUtensorMap map, std::uint32_t tiles, std::uint32_t box_rows,
                                  std::uint32_t stages, std::uint32_t passes, std::uint32_t* sums, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char stage_memory[];
  __shared__ __align__(8) unsigned long long barrier_words[kMaxTmaStages];
  if (threadIdx.x == 0 && blockIdx.x < tiles) {
    using namespace async_detail;
    const unsigned tile_bytes = box_rows * kTmaRowBytes;
    const unsigned first_stage = aligned_128(mbarrier::shared_address(stage_memory));
    const unsigned barriers = mbarrier::shared_address(barrier_words);
    for (std::uint32_t s = 0; s < stages; ++s) mbarrier::init(barriers + 8u * s);
    mbarrier::fence_init();
    const std::uint32_t total = (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x * passes;
    // Running stage, tile and parity instead of divisions: one thread issues every copy of its SM.
    std::uint32_t issue_stage = 0, issue_tile = blockIdx.x;
    const auto issue = [&] {
      const unsigned barrier = barriers + 8u * issue_stage;
      mbarrier::arrive_expecting(barrier, tile_bytes);
      tensor_tile_load(first_stage + issue_stage * tile_bytes, &map, issue_tile, box_rows, barrier);
      issue_stage = issue_stage + 1 == stages ? 0 : issue_stage + 1;
      issue_tile += gridDim.x;
      if (issue_tile >= tiles) issue_tile = blockIdx.x;
    };
    for (std::uint32_t k = 0; k < stages && k < total; ++k) issue();
    std::uint32_t sum = 0, wait_stage = 0, parity = 0;
#pragma unroll 1
    for (std::uint32_t k = 0; k < total; ++k) {
      mbarrier::wait(barriers + 8u * wait_stage, parity);
      if (sums != nullptr) {
        sum += shared_word(first_stage + wait_stage * tile_bytes);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the read before the TMA refills the stage
      }
      if (++wait_stage == stages) {
        wait_stage = 0;
        parity ^= 1u;
      }
      if (k + stages < total) issue();
    }
    if (sums != nullptr) sums[blockIdx.x] = sum;
  }
  __syncwarp();
#endif
  clocks.end(start);
}

// cp.async (and load-and-store) latency: one thread chases a word-indexed chain (DeviceChain, index
// unit 4) by copying Width bytes at the current node into shared memory (cp.async then commit and
// wait_group 0, or a load into registers and a shared store) and reading the next index from there.
// Launch as tma_chase (pinned, one-thread blocks); position[0] word index before and after, [1] SM + 1.
template <CopyVia Via, int Width>
static __global__ void copy_chase(const std::uint32_t* words, std::uint32_t* position, std::uint32_t warmup,
                                  std::uint32_t steps, Clocks clocks, int target_sm, unsigned long long* claim,
                                  unsigned long long launch_id) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __shared__ __align__(16) std::uint32_t landing[4];
  if (!chases_here(target_sm, claim, launch_id)) return;
  using namespace async_detail;
  const unsigned to = mbarrier::shared_address(landing);
  const auto step = [&](std::uint32_t at) {
    copy_to_shared<Via, Width>(to, words + at);
    if constexpr (is_cp_async<Via>) {
      cp_async_commit();
      cp_async_wait<0>();
    }
    return shared_word(to);
  };
  std::uint32_t at = position[0];
  at = timed_chase(step, at, warmup, steps, clocks);
  position[0] = at;
  position[1] = sm_id() + 1u;
#endif
}

// Copy bandwidth into shared memory: blocks take chunks of blockDim.x * Width bytes (block b: b, b +
// gridDim.x, ...), each thread Width bytes of a chunk into its slot of one of kCopyStages buffers,
// kCopyStages chunks in flight per thread: cp.async groups (wait_group kCopyStages - 1), or
// kCopyStages loads into registers before their shared stores. `passes` times over the buffer. With
// `sums` (tests) each thread adds the first word of every Width bytes it copied, read back from shared
// memory, into sums[global thread]. Dynamic shared memory: kCopyStages * blockDim.x * Width.
inline constexpr int kCopyStages = 4;

template <CopyVia Via, int Width>
static __global__ void copy_stream(const char* src, std::size_t bytes, std::uint32_t passes, std::uint32_t* sums,
                                   Clocks clocks) {
  extern __shared__ __align__(16) unsigned char landing_memory[];
  const Clocks::Stamp start = clocks.begin_block();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace async_detail;
  const std::size_t chunk_bytes = static_cast<std::size_t>(blockDim.x) * Width;
  const std::size_t chunks = bytes / chunk_bytes;
  const std::uint32_t total =
      chunks > blockIdx.x ? static_cast<std::uint32_t>((chunks - blockIdx.x + gridDim.x - 1) / gridDim.x) * passes : 0;
  // A running source pointer and stage instead of divisions in the loop.
  const char* const first = src + blockIdx.x * chunk_bytes + threadIdx.x * Width;
  const char* const past = src + chunks * chunk_bytes;
  const std::size_t jump = static_cast<std::size_t>(gridDim.x) * chunk_bytes;
  const char* next = first;
  const auto advance = [&] {
    next += jump;
    if (next >= past) next = first;
  };
  const unsigned stage_bytes = blockDim.x * Width;
  const unsigned slot0 = mbarrier::shared_address(landing_memory) + threadIdx.x * Width;
  std::uint32_t sum = 0;
  if constexpr (is_cp_async<Via>) {
    unsigned issue_stage = 0, read_stage = 0;
    const auto issue = [&](std::uint32_t k) {
      if (k < total) {
        copy_to_shared<Via, Width>(slot0 + issue_stage * stage_bytes, next);
        advance();
      }
      cp_async_commit();  // empty groups at the end keep wait_group's count
      issue_stage = issue_stage + 1 == kCopyStages ? 0 : issue_stage + 1;
    };
#pragma unroll
    for (std::uint32_t k = 0; k < kCopyStages - 1; ++k) issue(k);
#pragma unroll 1
    for (std::uint32_t k = 0; k < total; ++k) {
      issue(k + kCopyStages - 1);
      cp_async_wait<kCopyStages - 1>();  // copy k has landed
      if (sums != nullptr) sum += shared_word(slot0 + read_stage * stage_bytes);
      read_stage = read_stage + 1 == kCopyStages ? 0 : read_stage + 1;
    }
  } else {
#pragma unroll 1
    for (std::uint32_t k = 0; k < total; k += kCopyStages) {
      uint4 v[kCopyStages];
#pragma unroll
      for (int s = 0; s < kCopyStages; ++s)
        if (k + s < total) {
          v[s] = load_vector<Via, Width>(next);
          advance();
        }
#pragma unroll
      for (int s = 0; s < kCopyStages; ++s)
        if (k + s < total) store_vector<Width>(slot0 + s * stage_bytes, v[s]);
      if (sums != nullptr)
        for (int s = 0; s < kCopyStages && k + s < total; ++s) sum += shared_word(slot0 + s * stage_bytes);
    }
  }
  if (sums != nullptr) sums[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
#endif
  clocks.end_block(start);
}
#endif

}  // namespace gpubench::kernels
