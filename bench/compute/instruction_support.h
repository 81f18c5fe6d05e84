// Host facts of the compute families: an instruction's peak rate on an architecture (whether the GPU has
// it at all is the rows' Requirement, needs_sm(info.min_sm, info.name)).
#pragma once

#include "kernels/compute/instruction_info.h"

#include <optional>
#include <string>

namespace gpubench {

// Results per clock per SM the CUDA Programming Guide gives for this pipe, if it gives one.
std::optional<int> peak_results_per_sm_per_clock(Pipe pipe, int major, int minor);

}  // namespace gpubench
