// Other processes on the GPU when a run starts and when it ends (and, by detail::ProcessSampler, in between):
// they share its SMs, memory bandwidth, memory and clocks, so the run says so (a warning, context fields) and the
// verdict calls the GPU busy.
#pragma once

#include <string>

namespace gpubench::app {

// The processes of a node run (gpubench's parent, named by GPUBENCH_NODE_PID, and its children) are not
// "other": they run on the other GPUs by design.
inline constexpr const char* kNodePidVariable = "GPUBENCH_NODE_PID";

// Whether `pid` is this run's: this process, or in a node run its parent and every child of that parent.
bool ours(long pid);

// "none", "2 (pid 1234 python3 40960 MiB; pid 5678 ...)", or "unknown (...)" where NVML cannot tell (the one reader
// of other processes: detail::processes_now, which the sampler through the run uses too).
std::string other_gpu_processes(int device);

}  // namespace gpubench::app
