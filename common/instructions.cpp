#include "common/instructions.h"

#include "common/arch_table.h"

#include <stdexcept>

namespace gpubench {

const std::vector<InstructionInfo>& instruction_table() {
  static const std::vector<InstructionInfo> table = {
      {Instruction::kFfma, "ffma", "fma.rn.f32", Pipe::kFp32, 1, 2, 7, 5},
      {Instruction::kFadd, "fadd", "add.rn.f32", Pipe::kFp32, 1, 1, 7, 5},
      {Instruction::kDfma, "dfma", "fma.rn.f64", Pipe::kFp64, 1, 2, 7, 5},
      {Instruction::kImad, "imad", "mad.lo.u32", Pipe::kInt32Mad, 1, 0, 7, 5},
      {Instruction::kHfma2, "hfma2", "fma.rn.f16x2", Pipe::kFp16, 2, 2, 7, 5},
      {Instruction::kRsqrt, "rsqrt", "rsqrt.approx.ftz.f32", Pipe::kSfu, 1, 0, 7, 5},
      {Instruction::kSin, "sin", "sin.approx.ftz.f32", Pipe::kSfu, 1, 0, 7, 5},
      {Instruction::kEx2, "ex2", "ex2.approx.ftz.f32 (of -x)", Pipe::kSfu, 1, 0, 7, 5},
      {Instruction::kSqrt, "sqrt", "sqrt.rn.f32", Pipe::kSequence, 1, 0, 7, 5},
      {Instruction::kDiv, "div", "div.rn.f32", Pipe::kSequence, 1, 0, 7, 5},
  };
  return table;
}

const InstructionInfo& instruction_info(Instruction id) {
  for (const InstructionInfo& info : instruction_table())
    if (info.id == id) return info;
  throw std::invalid_argument("instruction_info: not in the table");
}

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

std::optional<std::string> unsupported_reason(const InstructionInfo& info, int major, int minor) {
  if (major > info.min_major || (major == info.min_major && minor >= info.min_minor)) return std::nullopt;
  return std::string(info.ptx) + " needs sm_" + std::to_string(info.min_major) + std::to_string(info.min_minor) +
         " or newer; this GPU is sm_" + std::to_string(major) + std::to_string(minor);
}

}  // namespace gpubench
