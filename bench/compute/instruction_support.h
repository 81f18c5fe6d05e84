// Host facts of the compute families: an instruction's peak rate on an architecture, and whether
// the GPU has the instruction at all.
#pragma once

#include "kernels/compute/instruction_info.h"

#include <optional>
#include <string>

namespace gpubench {

// Results per clock per SM the CUDA Programming Guide gives for this pipe, if it gives one.
std::optional<int> peak_results_per_sm_per_clock(Pipe pipe, int major, int minor);

// Why this GPU cannot run the instruction (naming the architecture), or nothing.
std::optional<std::string> unsupported_reason(const InstructionInfo& info, int major, int minor);

}  // namespace gpubench
