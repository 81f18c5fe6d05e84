#include "common/detail/stream_hold.h"

#include "common/clocks.h"
#include "common/cuda_check.h"

#include <atomic>

namespace gpubench {
namespace {

__global__ void hold_until_released(volatile HoldFlags* flags, unsigned long long timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  while (flags->release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flags->timed_out = 1;
      return;
    }
    __nanosleep(1000);  // each poll crosses PCIe; no need to hammer it
  }
}

}  // namespace

StreamHold::StreamHold(cudaStream_t stream, MappedHostValue<HoldFlags>& flags, unsigned long long timeout_ns)
    : flags_(flags) {
  flags_.host()->release = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_until_released<<<1, 1, 0, stream>>>(flags_.device(), timeout_ns);
  GPUBENCH_CUDA_LAUNCHED();
  held_ = true;
}

void StreamHold::release() noexcept {
  if (!held_) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_.host()->release = 1;
  held_ = false;
}

bool probe_stream_hold(cudaStream_t stream, MappedHostValue<HoldFlags>& flags) {
  constexpr unsigned long long kProbeTimeoutNs = 100'000'000ULL;
  bool held = false;
  {
    StreamHold hold(stream, flags, kProbeTimeoutNs);
    held = cudaStreamQuery(stream) == cudaErrorNotReady;
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  flags.host()->timed_out = 0;
  return held;
}

}  // namespace gpubench
