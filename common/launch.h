// A launch under test: enqueues the kernel on the stream; the kernel stamps its span through Clocks.
// It must do the same work every time it is called.
#pragma once

#include "common/clocks.h"

#include <cuda_runtime_api.h>

#include <functional>

namespace gpubench {

using Launch = std::function<void(cudaStream_t, Clocks)>;

}  // namespace gpubench
