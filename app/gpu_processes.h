// Other processes on the GPU when a run starts: they share its SMs, memory bandwidth and clocks, so
// the run says so (one warning, a context field) instead of silently measuring less.
#pragma once

#include <string>

namespace gpubench::app {

// "none", "2 (pids 1234, 5678)", or "unknown (...)" where nvidia-smi cannot tell.
std::string other_gpu_processes(int device);

}  // namespace gpubench::app
