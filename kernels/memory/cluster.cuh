// Thread-block clusters (sm_90+): blocks of one cluster run at once on one GPC and each may read and
// write the others' shared memory (distributed shared memory, DSMEM) through the cluster's shared
// window: mapa turns an address in this block's shared memory into the same place in block `rank`'s,
// and ld/st.shared::cluster reach it over the SM-to-SM network. On older GPUs the kernels do nothing
// (the host checks the architecture first).
#pragma once

#include "common/clocks.h"
#include "kernels/memory/pointer_chase.cuh"

#include <cstdint>

namespace gpubench::kernels {

// Which shared memory a kernel addresses: its own block's through the block window (ld.shared), or
// any block's of the cluster through the cluster window (ld.shared::cluster).
enum class SharedWindow { kBlock, kCluster };

#if defined(__CUDACC__)
namespace cluster {

__device__ __forceinline__ unsigned rank() {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}

__device__ __forceinline__ unsigned size() {
  unsigned n = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#endif
  return n;
}

// The cluster-window address of `block_address` (this block's shared window) in block `rank`.
__device__ __forceinline__ unsigned map_to(unsigned block_address, unsigned target_rank) {
  unsigned mapped = block_address;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(block_address), "r"(target_rank));
#endif
  return mapped;
}

// Every thread of every block of the cluster: writes before it are seen by reads after it, and no
// block leaves while another may still address its shared memory.
__device__ __forceinline__ void sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

template <SharedWindow Window>
__device__ __forceinline__ std::uint32_t load_word(unsigned address) {
  std::uint32_t value = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Window == SharedWindow::kCluster)
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(value) : "r"(address));
  else
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(value) : "r"(address));
#endif
  return value;
}

// The sum of the Width / 4 words at `address` (Width 4, 8 or 16 bytes: one load instruction).
template <SharedWindow Window, int Width>
__device__ __forceinline__ std::uint32_t load_sum(unsigned address) {
  static_assert(Width == 4 || Width == 8 || Width == 16, "4-, 8- or 16-byte accesses");
  std::uint32_t a = 0, b = 0, c = 0, d = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Width == 4) {
    a = load_word<Window>(address);
  } else if constexpr (Width == 8) {
    if constexpr (Window == SharedWindow::kCluster)
      asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(address));
    else
      asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(address));
  } else {
    if constexpr (Window == SharedWindow::kCluster)
      asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                   : "r"(address));
    else
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(address));
  }
#endif
  return a + b + c + d;
}

// Stores words first, first + 1, ... (Width / 4 of them) at `address`.
template <SharedWindow Window, int Width>
__device__ __forceinline__ void store_words(unsigned address, std::uint32_t first) {
  static_assert(Width == 4 || Width == 8 || Width == 16, "4-, 8- or 16-byte accesses");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Width == 4) {
    if constexpr (Window == SharedWindow::kCluster)
      asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(address), "r"(first) : "memory");
    else
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(address), "r"(first) : "memory");
  } else if constexpr (Width == 8) {
    if constexpr (Window == SharedWindow::kCluster)
      asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %2};" ::"r"(address), "r"(first), "r"(first + 1) : "memory");
    else
      asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(address), "r"(first), "r"(first + 1) : "memory");
  } else {
    if constexpr (Window == SharedWindow::kCluster)
      asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(first), "r"(first + 1),
                   "r"(first + 2), "r"(first + 3)
                   : "memory");
    else
      asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(address), "r"(first), "r"(first + 1),
                   "r"(first + 2), "r"(first + 3)
                   : "memory");
  }
#endif
}

}  // namespace cluster

// What block `rank` writes at word i of a buffer (and what DsmemStream reads and checks there).
__host__ __device__ constexpr std::uint32_t dsmem_word(unsigned rank, std::uint32_t i) { return (rank << 24) ^ i; }

// Pointer chase in another block's shared memory. Launch one cluster (gridDim.x = cluster size) with
// `word_count` x 4 bytes of dynamic shared memory (or more, to keep one block per SM). Every block
// lays the chain (word indices, as DeviceChain holds them) into its own shared memory as addresses of
// the window the chase uses; then thread 0 of rank 0 chases in block `target_rank`'s: `warmup`
// untimed then `steps` timed loads (a multiple of kDirectUnroll), each address the previous value.
// position[0]: word index before and after. sms[r]: the SM block r ran on.
template <SharedWindow Window>
static __global__ void dsmem_chase(const std::uint32_t* words, std::uint32_t word_count, std::uint32_t* position,
                                   unsigned target_rank, std::uint32_t warmup, std::uint32_t steps, std::uint32_t* sms,
                                   Clocks clocks) {
  extern __shared__ std::uint32_t chain_words[];
  const unsigned rank = cluster::rank();
  const unsigned block_base = static_cast<unsigned>(__cvta_generic_to_shared(chain_words));
  const unsigned own_base = Window == SharedWindow::kCluster ? cluster::map_to(block_base, rank) : block_base;
  for (std::uint32_t i = threadIdx.x; i < word_count; i += blockDim.x) chain_words[i] = own_base + 4u * words[i];
  if (threadIdx.x == 0) sms[rank] = sm_id();
  cluster::sync();
  if (rank == 0 && threadIdx.x == 0) {
    const unsigned base = Window == SharedWindow::kCluster ? cluster::map_to(block_base, target_rank) : block_base;
    unsigned at = base + 4u * position[0];
#pragma unroll 1
    for (std::uint32_t i = 0; i < warmup; ++i) at = cluster::load_word<Window>(at);
    const Clocks::Stamp start = clocks.begin_after(at);
#pragma unroll 1
    for (std::uint32_t i = 0; i < steps; i += kDirectUnroll) {
#pragma unroll
      for (std::uint32_t j = 0; j < kDirectUnroll; ++j) at = cluster::load_word<Window>(at);
    }
    clocks.end_after(start, at);  // rank 0 of the only cluster is block 0
    position[0] = (at - base) / 4u;
  }
  cluster::sync();  // the target's shared memory outlives the chase
}

// Shared-memory bandwidth between the blocks of a cluster: every block fills its `buffer_bytes` of
// dynamic shared memory with dsmem_word(rank, i), then, `reps` times over, its threads read (or
// write, Write) the whole buffer of the next block of the cluster, rank + 1 mod size, Width bytes per
// access, through the cluster window; through the block window (Window kBlock) each block its own.
// Reads: out[global thread] = the sum of every word the thread read. Writes: word i of block r's
// buffer becomes dsmem_word(writer, i) ^ 0x00800000 (so a missed write shows), copied to
// out[r * words + i] after the cluster's last write.
template <int Width, bool Write, SharedWindow Window>
static __global__ void dsmem_stream(std::uint32_t* out, std::uint32_t buffer_bytes, std::uint32_t reps, Clocks clocks) {
  extern __shared__ __align__(16) std::uint32_t buffer[];
  const unsigned rank = cluster::rank();
  const std::uint32_t words = buffer_bytes / 4u;
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) buffer[i] = dsmem_word(rank, i);
  cluster::sync();
  const unsigned block_base = static_cast<unsigned>(__cvta_generic_to_shared(buffer));
  const unsigned target =
      Window == SharedWindow::kCluster ? cluster::map_to(block_base, (rank + 1) % cluster::size()) : block_base;
  const std::uint32_t accesses = buffer_bytes / Width;
  const std::uint32_t written = dsmem_word(rank, 0) ^ 0x00800000u;
  std::uint32_t sum = 0;
  const Clocks::Stamp start = clocks.begin_block();
#pragma unroll 1
  for (std::uint32_t r = 0; r < reps; ++r) {
#pragma unroll 4
    for (std::uint32_t v = threadIdx.x; v < accesses; v += blockDim.x) {
      if constexpr (Write)
        cluster::store_words<Window, Width>(target + v * Width, written ^ (v * (Width / 4)));
      else
        sum += cluster::load_sum<Window, Width>(target + v * Width);
    }
  }
  clocks.end_block(start, static_cast<int>(sum | 1u));
  cluster::sync();  // every write has landed; no block leaves while a neighbour reads it
  if constexpr (Write) {
    for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x)
      out[static_cast<std::size_t>(blockIdx.x) * words + i] = buffer[i];
  } else {
    out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
  }
}
#endif

}  // namespace gpubench::kernels
