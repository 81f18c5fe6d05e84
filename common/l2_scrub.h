// Reads a buffer through L2 so that what was there (dirty lines of earlier kernels included) is
// written back and replaced by clean lines.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpubench {

void launch_l2_scrub(const int4* buffer, std::size_t count, int* sink, int sm_count, cudaStream_t stream);

}  // namespace gpubench
