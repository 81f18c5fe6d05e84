// Work claimed from a counter instead of dealt out in advance. On an H100 the SMs do not stream at
// one rate: the SMs of some GPCs copy up to 1.5x faster than the rest (docs/experiments/stream.md),
// so a grid-stride or block-contiguous split ends when the slowest SMs end, with the fast ones
// idle. A warp (or block) that claims its next tile when it is ready keeps every SM busy to the end.
#pragma once

#include <cstddef>

namespace gpubench::kernels {

// Zero before the first launch; each launch leaves it at zero again for the next (release_claims).
struct WorkClaims {
  unsigned long long next_tile;
  unsigned long long claimers_done;
};

#if defined(__CUDACC__)
__device__ __forceinline__ std::size_t claim_tile(WorkClaims* claims) {
  return static_cast<std::size_t>(atomicAdd(&claims->next_tile, 1ull));
}

// Called once by each claimer (a warp's lane 0, a block's thread 0) after its last claim (the one
// past the end). The last to arrive resets the counter: no claim of this launch can come after it.
__device__ __forceinline__ void release_claims(WorkClaims* claims, unsigned long long claimers) {
  __threadfence();
  if (atomicAdd(&claims->claimers_done, 1ull) == claimers - 1) {
    claims->next_tile = 0;
    claims->claimers_done = 0;
    __threadfence();
  }
}
#endif

}  // namespace gpubench::kernels
