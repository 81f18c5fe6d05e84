// The power window's arithmetic: NVML's units (mJ, mW, ns) into the rows' (W), the energy counter
// preferred over a long enough window, the reason bits and violation times that flag a capped row.
#include "common/power.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

PowerSample at(double seconds, std::uint64_t energy_mj, std::uint32_t power_mw) {
  PowerSample s;
  s.host_seconds = seconds;
  s.energy_mj = energy_mj;
  s.power_mw = power_mw;
  s.limit_mw = 700000;
  s.reasons = clock_reasons::kGpuIdle;
  s.power_violation_ns = 5000;
  s.thermal_violation_ns = 0;
  return s;
}

TEST(PowerWindow, EnergyOverALongWindowIsThePower) {
  const PowerWindow w = power_window(at(10.0, 1'000'000, 90000), at(11.25, 1'625'000, 80000));
  ASSERT_TRUE(w.power_w);
  EXPECT_DOUBLE_EQ(*w.power_w, 500.0);  // 625 J over 1.25 s
  ASSERT_TRUE(w.limit_w);
  EXPECT_DOUBLE_EQ(*w.limit_w, 700.0);
  EXPECT_EQ(w.reasons, 0u);  // the idle bit of the samples is not the run's
  EXPECT_FALSE(w.power_capped);
  EXPECT_FALSE(w.thermal_capped);
}

// The board's reading lags (an H100 showed the previous row's power): no figure rather than a stale one.
TEST(PowerWindow, AShortWindowOrNoEnergyCounterGivesNoPower) {
  EXPECT_FALSE(power_window(at(10.0, 1'000'000, 90000), at(10.5, 1'200'000, 412000)).power_w);
  PowerSample before = at(0.0, 0, 0), after = at(1.0, 0, 300000);
  before.energy_mj.reset();
  after.energy_mj.reset();
  const PowerWindow w = power_window(before, after);
  EXPECT_FALSE(w.power_w);
  ASSERT_TRUE(w.limit_w);
  PowerSample empty;
  EXPECT_FALSE(power_window(empty, empty).power_w);
  EXPECT_FALSE(power_window(empty, empty).limit_w);
}

TEST(PowerWindow, CapsShowInReasonBitsOrGrowingViolationTime) {
  PowerSample before = at(0.0, 0, 0), after = at(1.0, 700'000, 0);
  before.reasons = clock_reasons::kHwThermalSlowdown;  // the previous row's
  after.reasons = clock_reasons::kSwPowerCap;
  PowerWindow w = power_window(before, after);
  EXPECT_TRUE(w.power_capped);
  EXPECT_FALSE(w.thermal_capped);
  EXPECT_EQ(w.reasons, clock_reasons::kSwPowerCap);

  after.reasons = 0;
  after.power_violation_ns = *before.power_violation_ns + 1;  // capped between the samples
  EXPECT_TRUE(power_window(before, after).power_capped);

  after.power_violation_ns = before.power_violation_ns;
  after.thermal_violation_ns = 10;
  w = power_window(before, after);
  EXPECT_FALSE(w.power_capped);
  EXPECT_TRUE(w.thermal_capped);

  after.thermal_violation_ns = 0;
  after.reasons = clock_reasons::kHwThermalSlowdown;
  EXPECT_TRUE(power_window(before, after).thermal_capped);
}

TEST(PowerWindow, ReasonBitsHaveNames) {
  EXPECT_EQ(clock_reason_names(0), "none");
  EXPECT_EQ(clock_reason_names(clock_reasons::kSwPowerCap | clock_reasons::kHwSlowdown), "SwPowerCap, HwSlowdown");
  EXPECT_EQ(clock_reason_names(0x400 | clock_reasons::kGpuIdle), "GpuIdle, 0x400");
}

}  // namespace
}  // namespace gpubench
