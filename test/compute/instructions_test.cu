// The instruction descriptions: one per instruction, unique names, and the host facts the compute
// families derive from them (peak rates, unsupported architectures).
#include "bench/compute/instruction_support.h"
#include "common/registry.h"
#include "kernels/compute/instruction_chains.cuh"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpubench {
namespace {

TEST(Instructions, ListHasUniqueNamesAndEveryInstruction) {
  std::set<std::string> names;
  kernels::Instructions::for_each([&](auto instruction) {
    using I = decltype(instruction);
    EXPECT_TRUE(names.insert(I::info.name).second) << I::info.name;
    EXPECT_GE(I::info.results_per_instruction, 1);
    EXPECT_EQ(std::string(I::info.ptx), I::kPtx);
  });
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(kernels::Instructions::size, 10);
  EXPECT_EQ(kernels::Hfma2::info.results_per_instruction, 2);
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
  const InstructionInfo& ffma = kernels::Ffma::info;
  const Requirement requirement = needs_sm(ffma.min_sm, ffma.name);
  const auto on = [](int major, int minor) {
    ChipShape chip;
    chip.major = major;
    chip.minor = minor;
    return chip;
  };
  EXPECT_FALSE(requirement(on(9, 0)).has_value());
  EXPECT_FALSE(requirement(on(7, 0)).has_value());
  const auto why = requirement(on(6, 1));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("sm_61"), std::string::npos) << *why;
  EXPECT_NE(why->find("sm_70"), std::string::npos) << *why;
}

}  // namespace
}  // namespace gpubench
