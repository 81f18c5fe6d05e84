// Chases pinned to one SM (kernels::chases_here): a launch of enough one-thread blocks that one lands
// on every SM, and a claim word with an id above every earlier launch's, so exactly one block (the
// first on the SM asked for) chases. An L2 hit's latency depends on the SM, so every chase family
// that compares with another chases from the same SM.
#pragma once

#include "common/arg_cache.h"
#include "common/cuda_check.h"
#include "common/device_memory.h"
#include "common/experiment.h"

namespace gpubench {

inline unsigned pinned_blocks() { return 2 * static_cast<unsigned>(device().sm_count); }

inline unsigned long long next_launch_id() {
  static unsigned long long id = 0;
  return ++id;
}

inline unsigned long long* chase_claim() {
  static ArgCache<DeviceBuffer<unsigned long long>> claims;  // released with the session, like the chains
  return claims
      .get({0},
           [] {
             DeviceBuffer<unsigned long long> claim(1);
             claim.fill_bytes(0, stream());
             return claim;
           })
      .data();
}

// Waits for what was just launched on `stream`, surfacing its launch and execution errors.
inline void finish_launched(cudaStream_t stream) {
  GPUBENCH_CUDA_LAUNCHED();
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
}

}  // namespace gpubench
