// Energy per unit: the active-idle baseline over each window's seconds comes off, the rest is spread
// over the window's work, in picojoules.
#include "common/energy.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(EnergyPerUnit, BaselineOffThenPerUnitInPicojoules) {
  EnergyWindow one;
  one.seconds = 1.0;
  one.joules = 500.0;
  one.launches = 100;
  EnergyWindow two = one;
  two.joules = 520.0;
  EXPECT_DOUBLE_EQ(one.watts(), 500.0);
  // 1e9 units per launch, 1e11 per window; 500 J - 100 W x 1 s = 400 J -> 4 nJ per unit.
  const std::vector<double> pj = picojoules_per_unit({one, two}, 1e9, 100.0);
  ASSERT_EQ(pj.size(), 2u);
  EXPECT_DOUBLE_EQ(pj[0], 4000.0);
  EXPECT_DOUBLE_EQ(pj[1], 4200.0);
  EXPECT_TRUE(picojoules_per_unit({one}, 0.0, 100.0).empty());  // no work: no figure
}

}  // namespace
}  // namespace gpubench
