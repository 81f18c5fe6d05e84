// Stream copy: out[i] = in[i] over 16-byte vectors, grid-stride, so every byte is read once and
// written once: the traffic any copy must move, at the bandwidth the memory system gives.
#pragma once

#include "common/clocks.h"

#include <cstddef>

namespace gpubench::kernels {

static __global__ void stream_copy(const float4* __restrict__ in, float4* __restrict__ out, std::size_t count,
                                   Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = in[i];
  clocks.end(start);
}

}  // namespace gpubench::kernels
