// The copy done by the tensor memory accelerator (Hopper's TMA, cp.async.bulk): one thread per block
// moves chunks global -> shared -> global through kStages shared-memory buffers, the loads of the
// next chunks in flight while a chunk is stored. No load or store instruction touches the data, so
// what it measures is the memory system under a copy, without the load/store unit's per-request cost.
// sm_90 and newer; on older GPUs the kernel does nothing (the host checks the architecture first).
#pragma once

#include "common/clocks.h"
#include "kernels/memory/mbarrier.cuh"
#include "kernels/memory/work_claims.cuh"

#include <cstddef>

namespace gpubench::kernels {

#if defined(__CUDACC__)
// Copies `bytes` (a multiple of 16) from src to dst in chunks (the last may be short). Without
// `claims` block b takes chunks b, b + gridDim.x, ...; with them each block claims its next chunk
// from the counter when a stage frees up (work_claims.cuh). Dynamic shared memory: kStages * chunk
// bytes (chunk a multiple of 16).
template <int kStages>
static __global__ void stream_copy_bulk(const char* src, char* dst, std::size_t bytes, unsigned chunk,
                                        WorkClaims* claims, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) char stage_memory[];
  __shared__ __align__(8) unsigned long long loaded[kStages];  // one mbarrier per stage
  __shared__ std::size_t chunk_in[kStages];                    // which chunk each stage holds
  if (threadIdx.x == 0) {
    using mbarrier::shared_address;
    for (int s = 0; s < kStages; ++s) mbarrier::init(shared_address(&loaded[s]));
    mbarrier::fence_init();
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    const auto size_of = [&](std::size_t c) {
      const std::size_t left = bytes - c * chunk;
      return static_cast<unsigned>(left < chunk ? left : chunk);
    };
    std::size_t asked = 0;   // chunks this block has asked for
    std::size_t issued = 0;  // loads issued; load n goes to stage n % kStages
    bool more = true;
    const auto load_next = [&]() {
      if (!more) return;
      const std::size_t c = claims ? claim_tile(claims) : blockIdx.x + asked * gridDim.x;
      ++asked;
      if (c >= chunks) {
        more = false;
        return;
      }
      const int s = static_cast<int>(issued % kStages);
      chunk_in[s] = c;
      mbarrier::arrive_expecting(shared_address(&loaded[s]), size_of(c));
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       shared_address(stage_memory + s * chunk)),
                   "l"(src + c * chunk), "r"(size_of(c)), "r"(shared_address(&loaded[s]))
                   : "memory");
      ++issued;
    };
    for (int s = 0; s < kStages; ++s) load_next();
    for (std::size_t k = 0; k < issued; ++k) {
      const int s = static_cast<int>(k % kStages);
      const unsigned parity = static_cast<unsigned>(k / kStages) & 1u;
      mbarrier::wait(shared_address(&loaded[s]), parity);
      const std::size_t c = chunk_in[s];
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * chunk),
                   "r"(shared_address(stage_memory + s * chunk)), "r"(size_of(c))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      // Once the previous chunk's store has read its stage, the next chunk loads there.
      if (k >= 1 && more) {
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        load_next();
      }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // stores complete before the span ends
    if (claims) release_claims(claims, gridDim.x);
  }
  __syncwarp();
#endif
  clocks.end(start);
}
#endif

}  // namespace gpubench::kernels
