#include "common/instructions.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpubench {
namespace {

TEST(Instructions, TableHasUniqueNamesAndEveryInstruction) {
  std::set<std::string> names;
  for (const InstructionInfo& info : instruction_table()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(&instruction_info(info.id), &info);
    EXPECT_GE(info.results_per_instruction, 1);
  }
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(instruction_info(Instruction::kHfma2).results_per_instruction, 2);
}

TEST(Instructions, PeaksComeFromTheArchitectureTable) {
  EXPECT_EQ(peak_results_per_sm_per_clock(Pipe::kFp32, 9, 0), 128);
  EXPECT_EQ(peak_results_per_sm_per_clock(Pipe::kFp32, 8, 0), 64);
  EXPECT_EQ(peak_results_per_sm_per_clock(Pipe::kFp64, 9, 0), 64);
  EXPECT_EQ(peak_results_per_sm_per_clock(Pipe::kSfu, 9, 0), 16);
  EXPECT_EQ(peak_results_per_sm_per_clock(Pipe::kFp16, 9, 0), 256);
  EXPECT_FALSE(peak_results_per_sm_per_clock(Pipe::kSequence, 9, 0).has_value());
  EXPECT_FALSE(peak_results_per_sm_per_clock(Pipe::kFp32, 5, 2).has_value());
}

TEST(Instructions, UnsupportedArchitectureIsNamedInTheReason) {
  const InstructionInfo& ffma = instruction_info(Instruction::kFfma);
  EXPECT_FALSE(unsupported_reason(ffma, 9, 0).has_value());
  EXPECT_FALSE(unsupported_reason(ffma, 7, 5).has_value());
  const auto why = unsupported_reason(ffma, 7, 0);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("sm_70"), std::string::npos) << *why;
  EXPECT_NE(why->find("sm_75"), std::string::npos) << *why;
}

}  // namespace
}  // namespace gpubench
