// Whether a block of a kernel fits on an SM at all: its registers a thread can leave room for fewer threads than
// a sweep asks (72 registers allow 896 of the 1024), and such a row is skipped with the reason, not launched
// into cudaErrorLaunchOutOfResources.
#pragma once

#include "common/cuda_check.h"

#include <optional>
#include <string>

namespace gpubench {

// Why `threads` threads of `kernel` cannot run on one SM (its registers), or nothing; `what` names them.
template <class Kernel>
std::optional<std::string> does_not_fit(Kernel kernel, int threads, const std::string& what) {
  int blocks_per_sm = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, 0));
  if (blocks_per_sm > 0) return std::nullopt;
  cudaFuncAttributes attributes{};
  GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  return what + " do not fit on an SM (" + std::to_string(attributes.numRegs) + " registers per thread)";
}

}  // namespace gpubench
