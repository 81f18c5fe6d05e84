#include "common/detail/l2_scrub.h"

#include "common/cuda_check.h"

namespace gpubench {
namespace {

__global__ void read_through_l2(const int4* buffer, std::size_t count, int* sink) {
  int acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int4 v = __ldcg(buffer + i);  // cache in L2 only
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) *sink = acc;  // keeps the loads alive; the buffer is zeros, so never taken
}

// The buffer is scratch: its contents after a discard do not matter.
__global__ void discard_from_l2(const int4* buffer, std::size_t lines) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const char* bytes = reinterpret_cast<const char*>(buffer);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < lines; i += stride)
    asm volatile("discard.global.L2 [%0], 128;" : : "l"(bytes + i * 128) : "memory");
#endif
}

}  // namespace

void launch_l2_scrub(const int4* buffer, std::size_t count, int* sink, int sm_count, cudaStream_t stream) {
  read_through_l2<<<sm_count * 4, 512, 0, stream>>>(buffer, count, sink);
  GPUBENCH_CUDA_LAUNCHED();
  discard_from_l2<<<sm_count * 4, 512, 0, stream>>>(buffer, count * sizeof(int4) / 128);
  GPUBENCH_CUDA_LAUNCHED();
}

}  // namespace gpubench
