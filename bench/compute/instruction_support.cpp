#include "bench/compute/instruction_support.h"

#include "common/arch_table.h"

namespace gpubench {

std::optional<int> peak_results_per_sm_per_clock(Pipe pipe, int major, int minor) {
  const auto arch = arch_throughput(major, minor);
  if (!arch) return std::nullopt;
  switch (pipe) {
    case Pipe::kFp32: return arch->fp32_fma_per_sm_per_clock;
    case Pipe::kFp64: return arch->fp64_fma_per_sm_per_clock;
    case Pipe::kInt32Mad: return arch->int32_mad_per_sm_per_clock;
    case Pipe::kFp16: return arch->fp16_fma_results_per_sm_per_clock;
    case Pipe::kSfu: return arch->sfu_per_sm_per_clock;
    case Pipe::kSequence:
    default: return std::nullopt;
  }
}

}  // namespace gpubench
