// What the compute experiments need to know of an instruction on the host: its name, the pipe that
// executes it, how many results one instruction gives, and the oldest architecture that has it.
// Plain data, so host-only code (tables, tests) can use it without nvcc.
#pragma once

namespace gpubench {

enum class Pipe { kFp32, kFp64, kInt32Mad, kFp16, kSfu, kSequence };

struct InstructionInfo {
  const char* name;             // benchmark name part, e.g. "ffma"
  const char* ptx;              // the PTX one step executes
  Pipe pipe;                    // kSequence: several SASS instructions, no single peak
  int results_per_instruction;  // 2 for HFMA2 (two halves)
  int flops_per_result;         // 2 for fused multiply-add
  int min_sm;                   // e.g. 75 for sm_75
};

// The fused multiply-adds of the FP32, FP64 and FP16 pipes: what the node check (--gpubench_preset=check) measures.
constexpr bool is_fma_pipe(const InstructionInfo& info) {
  return info.flops_per_result == 2 &&
         (info.pipe == Pipe::kFp32 || info.pipe == Pipe::kFp64 || info.pipe == Pipe::kFp16);
}

}  // namespace gpubench
