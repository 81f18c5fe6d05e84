// Dynamic shared memory that leaves room for one block per SM: every SM runs exactly one block, so
// block 0's clock span covers its SM's whole work (two small blocks could otherwise share an SM), and
// the blocks of a cluster sit on different SMs.
#pragma once

#include "common/cuda_check.h"
#include "common/experiment.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpubench {

// Sets the kernel's dynamic shared-memory limit and returns the bytes to launch with: more than half
// an SM's shared memory, and at least `at_least` (what the kernel itself needs). Throws unless
// exactly one block of `threads` threads then fits an SM.
template <class Kernel>
int one_block_per_sm(Kernel kernel, int threads, int at_least = 0) {
  const DeviceInfo& gpu = device();
  cudaFuncAttributes attributes{};
  GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  const int bytes = std::max(at_least, static_cast<int>(gpu.shared_memory_per_sm_bytes / 2) + 1 -
                                           static_cast<int>(attributes.sharedSizeBytes));
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  int blocks_per_sm = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, bytes));
  if (blocks_per_sm != 1)
    throw std::runtime_error("could not pin one block per SM (" + std::to_string(blocks_per_sm) + " fit)");
  return bytes;
}

}  // namespace gpubench
