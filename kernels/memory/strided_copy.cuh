// Strided gather: thread i copies in[i * stride] to out[i]. Stride 1 coalesces a warp's 32 loads
// into four 32-byte sectors; from stride 8 (32 bytes) on, every load needs its own sector.
#pragma once

#include "common/clocks.h"

#include <cstddef>

namespace gpubench::kernels {

static __global__ void strided_copy(const float* __restrict__ in, float* __restrict__ out, std::size_t count,
                                    int stride, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    out[i] = in[i * static_cast<std::size_t>(stride)];
  clocks.end(start);
}

}  // namespace gpubench::kernels
