#include "common/registry.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {
namespace {

void no_op(benchmark::State& state) {
  for (auto _ : state) {
  }
}

TEST(Registry, RowsOfARunOverSeveralGpusNameTheirGpu) {
  const Family family("RegistryProbe", Preset::kQuick, 1, /*several_devices=*/true);
  EXPECT_EQ(family.device(), 1);
  add_point(family.gpu("RegistryProbe/pinned", {"n"}, no_op), {{"n", 4}});
  const Registration gpu_row = registrations().back();
  EXPECT_EQ(gpu_row.name, "RegistryProbe/pinned/gpu:1");
  EXPECT_EQ(gpu_row.family, "RegistryProbe/gpu:1");  // progress counts each GPU's pass apart
  EXPECT_EQ(gpu_row.device, 1);
  EXPECT_TRUE(gpu_row.needs_gpu);
  const Registration* found = registration_of("RegistryProbe/pinned/gpu:1/n:4/manual_time");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->device, 1);

  family.cpu("RegistryProbe/host", {}, no_op);  // host rows run once: no GPU in the name
  EXPECT_EQ(registrations().back().name, "RegistryProbe/host");
  EXPECT_EQ(registrations().back().device, -1);
}

TEST(Registry, PointsNameTheirAxesInAnyOrderAndMissingOrUnknownAxesFail) {
  const Family family("RegistryAxes", Preset::kQuick);
  Benchmark* rows = family.gpu("RegistryAxes/rows", {"bytes", "stride"}, no_op);
  add_point(rows, {{"stride", 128}, {"bytes", 4096}});                 // lands as bytes:4096/stride:128
  EXPECT_THROW(add_point(rows, {{"bytes", 4096}}), std::logic_error);  // no stride
  EXPECT_THROW(add_point(rows, {{"bytes", 1}, {"stride", 2}, {"width", 4}}), std::logic_error);  // no width
  try {
    add_point(rows, {{"byte", 4096}, {"stride", 128}});
    FAIL() << "a misspelt axis must throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'bytes'"), std::string::npos) << e.what();
  }
}

TEST(Registry, TheCheckPresetRunsTheMarkedPointsAndRowsOnly) {
  const Family family("RegistryCheck", Preset::kQuick);
  Benchmark* rows = family.gpu("RegistryCheck/rows", {"bytes", "stride"}, no_op);
  add_point(rows, {{"bytes", 4096}, {"stride", 128}}, Check::kToo);
  add_point(rows, {{"bytes", 8192}, {"stride", 128}});
  in_check(family.gpu("RegistryCheck/whole", {}, no_op));
  family.gpu("RegistryCheck/other", {}, no_op);
  EXPECT_TRUE(runs_in_check("RegistryCheck/rows/bytes:4096/stride:128/min_time:0.020/manual_time"));
  EXPECT_FALSE(runs_in_check("RegistryCheck/rows/bytes:8192/stride:128/manual_time"));
  EXPECT_TRUE(runs_in_check("RegistryCheck/whole/manual_time"));
  EXPECT_FALSE(runs_in_check("RegistryCheck/other/manual_time"));
  EXPECT_FALSE(runs_in_check("NoSuchFamily/rows/manual_time"));
  const std::vector<std::pair<std::string, std::string>> expected = {{"bytes", "4096"}, {"min_time", "0.020"}};
  EXPECT_EQ(named_args("bytes:4096/min_time:0.020/manual_time"), expected);
}

TEST(Registry, ALongPresetRunsItsOwnRowsOnlyAndPresetsAreNamedByTheirWord) {
  const Family family("RegistryLong", Preset::kBurn);
  only_in_preset(family.gpu("RegistryLong/own", {}, no_op));
  family.gpu("RegistryLong/other", {}, no_op);
  EXPECT_TRUE(runs_in_own_preset("RegistryLong/own/iterations:1/manual_time"));
  EXPECT_FALSE(runs_in_own_preset("RegistryLong/other/manual_time"));
  EXPECT_FALSE(runs_in_own_preset("NoSuchFamily/rows/manual_time"));
  EXPECT_EQ(preset_named("burn"), Preset::kBurn);
  EXPECT_EQ(preset_named("memtest"), Preset::kMemtest);
  EXPECT_EQ(preset_named("check"), Preset::kCheck);
  EXPECT_THROW(preset_named("fast"), std::invalid_argument);
  EXPECT_EQ(preset_duration(), kDefaultDurationSeconds);
}

TEST(Registry, ARegistrationDeclaresAKnownNoiseClassOnly) {
  const Family family("RegistryNoise", Preset::kQuick);
  Benchmark* rows = family.gpu("RegistryNoise/rows", {}, no_op);
  noise_class(rows, "dram_bandwidth");
  noise_class(rows, "sm_time", "items_per_second");
  const std::map<std::string, std::string> expected = {{"", "dram_bandwidth"}, {"items_per_second", "sm_time"}};
  EXPECT_EQ(registration_of("RegistryNoise/rows/manual_time")->noise_classes, expected);
  EXPECT_THROW(noise_class(rows, "dram"), std::invalid_argument);
}

TEST(Registry, ProductOrdersItsPointsAsGoogleBenchmarksArgsProduct) {
  const std::vector<Point> points = product({{"ilp", {1, 4}}, {"warps", {8, 32}}});
  const std::vector<Point> expected = {
      {{"ilp", 1}, {"warps", 8}}, {{"ilp", 4}, {"warps", 8}}, {{"ilp", 1}, {"warps", 32}}, {{"ilp", 4}, {"warps", 32}}};
  EXPECT_EQ(points, expected);  // the first axis fastest
}

ChipShape sm(int major, int minor) {
  ChipShape chip;
  chip.major = major;
  chip.minor = minor;
  return chip;
}

TEST(Registry, ARequirementsRuleSaysWhatItsCheckDecides) {
  const std::vector<Requirement> requirements = {
      needs_sm(80, "cp.async"), only_on_sm(90, "wgmma"),
      both(needs_sm(89, "mma.sync e4m3"), not_on_major(9, "Hopper has no FP8 mma.sync"))};
  EXPECT_EQ(requirements[0].rule, "sm>=80");
  EXPECT_EQ(requirements[1].rule, "sm==90");
  EXPECT_EQ(requirements[2].rule, "sm>=89,major!=9");
  for (const Requirement& requirement : requirements)
    for (const ChipShape& chip : {sm(7, 0), sm(8, 0), sm(8, 9), sm(9, 0), sm(10, 0), sm(12, 0)})
      EXPECT_EQ(rule_admits(requirement.rule, chip), !requirement(chip).has_value())
          << requirement.rule << " on sm_" << chip.sm();
  EXPECT_EQ(*requirements[2](sm(9, 0)), "Hopper has no FP8 mma.sync");
  EXPECT_NE(requirements[2](sm(8, 0))->find("needs sm_89"), std::string::npos);
  EXPECT_THROW(rule_admits("sm>>1", sm(9, 0)), std::invalid_argument);
}

TEST(Registry, OneGpuRunsKeepPlainNamesAndTheSessionsGpu) {
  const Family family("RegistryPlain", Preset::kFull, 3);
  EXPECT_EQ(family.device(), 3);
  family.gpu("RegistryPlain/row", {}, no_op);
  EXPECT_EQ(registrations().back().name, "RegistryPlain/row");
  EXPECT_EQ(registrations().back().device, -1);
  EXPECT_EQ(Family::device_suffix(7), "/gpu:7");
}

}  // namespace
}  // namespace gpubench
