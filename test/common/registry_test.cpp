#include "common/registry.h"

#include <gtest/gtest.h>

#include <string>

namespace gpubench {
namespace {

void no_op(benchmark::State& state) {
  for (auto _ : state) {
  }
}

TEST(Registry, RowsOfARunOverSeveralGpusNameTheirGpu) {
  const Family family("RegistryProbe", Preset::kQuick, 1, /*several_devices=*/true);
  EXPECT_EQ(family.device(), 1);
  family.gpu("RegistryProbe/pinned", {"n"}, no_op)->Arg(4);
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
