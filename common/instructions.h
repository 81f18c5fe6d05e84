// The instructions the compute-pipeline experiments time: names, which pipe executes them, how many
// results one instruction gives, and where the architecture's peak rate for them comes from.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpubench {

enum class Instruction { kFfma, kFadd, kDfma, kImad, kHfma2, kRsqrt, kSin, kEx2, kSqrt, kDiv };

enum class Pipe { kFp32, kFp64, kInt32Mad, kFp16, kSfu, kSequence };

struct InstructionInfo {
  Instruction id;
  const char* name;   // benchmark name part, e.g. "ffma"
  const char* ptx;    // what the chain executes
  Pipe pipe;          // kSequence: several instructions, no single peak
  int results_per_instruction;  // 2 for HFMA2 (two halves)
  int flops_per_result;         // 2 for fused multiply-add
  int min_major;
  int min_minor;
};

const std::vector<InstructionInfo>& instruction_table();
const InstructionInfo& instruction_info(Instruction id);

// Results per clock per SM the CUDA Programming Guide gives for this pipe, if it gives one.
std::optional<int> peak_results_per_sm_per_clock(Pipe pipe, int major, int minor);

// Why this GPU cannot run the instruction (naming the architecture), or nothing.
std::optional<std::string> unsupported_reason(const InstructionInfo& info, int major, int minor);

}  // namespace gpubench
