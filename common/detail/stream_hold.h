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

// A kernel launched for the first time behind a hold would wait for it (lazy module loading waits
// for the device to idle): launch it once before holding; run()'s warm-up launch does.
// Where kernel launches return only after the kernel ends (compute-sanitizer serializes them), no
// hold is possible: probe_stream_hold() tells, so callers time without one.
class StreamHold {
 public:
  // The kernel gives up on its own after timeout_ns, so a lost release can never hang the GPU.
  static constexpr unsigned long long kTimeoutNs = 2'000'000'000ULL;

  StreamHold(cudaStream_t stream, MappedHostValue<HoldFlags>& flags, unsigned long long timeout_ns = kTimeoutNs);
  ~StreamHold() { release(); }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  void release() noexcept;

 private:
  MappedHostValue<HoldFlags>& flags_;
  bool held_ = false;
};

// True when a held stream really waits for the host (checked with a short-lived hold).
bool probe_stream_hold(cudaStream_t stream, MappedHostValue<HoldFlags>& flags);

}  // namespace gpubench
