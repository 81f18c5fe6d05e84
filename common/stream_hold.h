// Holds a stream with a spinning kernel until every timed command is queued behind it, so the
// start event fires right before the work rather than before the host finishes submitting it
// (the "blocking kernel" of nvbench). Released on destruction, also when a launch throws.
#pragma once

#include "common/device_memory.h"

#include <cuda_runtime_api.h>

namespace gpubench {

struct HoldFlags {
  int release;
  int timed_out;
};

class StreamHold {
 public:
  // The kernel gives up on its own after timeout_ns, so a lost release can never hang the GPU.
  static constexpr unsigned long long kTimeoutNs = 2'000'000'000ULL;

  StreamHold(cudaStream_t stream, MappedHostValue<HoldFlags>& flags);
  ~StreamHold() { release(); }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  void release() noexcept;

 private:
  MappedHostValue<HoldFlags>& flags_;
  bool held_ = false;
};

}  // namespace gpubench
