// Empties L2 the way Nsight Compute's default cache control does before a profiled pass: reading a
// buffer twice L2's size evicts whatever was there (dirty lines of earlier kernels are written back
// now, not during the next kernel), then discarding the buffer's lines (sm_80+) invalidates them
// without a write, so the next kernel starts on an empty L2 rather than one full of clean lines.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpubench {

void launch_l2_scrub(const int4* buffer, std::size_t count, int* sink, int sm_count, cudaStream_t stream);

}  // namespace gpubench
