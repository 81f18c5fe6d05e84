#include "common/detail/cycle_stats.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace gpubench {
namespace {

CycleSpan span(std::uint64_t cycles, std::uint64_t ns) { return CycleSpan{1000, 1000 + cycles, 50, 50 + ns}; }

TEST(CycleStats, EmptyHasNoCyclesAndNoClock) {
  CycleStats stats;
  EXPECT_EQ(stats.count(), 0);
  EXPECT_EQ(stats.mean_cycles(), 0.0);
  EXPECT_FALSE(stats.sm_mhz().has_value());
}

TEST(CycleStats, MeanAndMinimumOverSpans) {
  CycleStats stats;
  stats.add(span(100, 1));
  stats.add(span(300, 1));
  stats.add(span(200, 1));
  EXPECT_EQ(stats.count(), 3);
  EXPECT_DOUBLE_EQ(stats.mean_cycles(), 200.0);
  EXPECT_DOUBLE_EQ(stats.min_cycles(), 100.0);
}

TEST(CycleStats, SpreadIsTheMinToQ3WidthOverTheMedian) {
  CycleStats stats;
  for (std::uint64_t cycles : {100, 100, 101, 102, 110, 300, 100, 104}) stats.add(span(cycles, 1));
  // Sorted: 100 100 100 101 102 104 110 300; median (index 4 of 0..7, rounded) 102, q3 (index 5) 104.
  ASSERT_TRUE(stats.relative_spread().has_value());
  EXPECT_DOUBLE_EQ(*stats.relative_spread(), (104.0 - 100.0) / 102.0);  // the one outlier does not widen it
}

TEST(CycleStats, SpreadNeedsFourSamples) {
  CycleStats stats;
  for (int i = 0; i < 3; ++i) stats.add(span(100, 1));
  EXPECT_FALSE(stats.relative_spread().has_value());
  std::vector<double> times = {2.0, 2.0, 2.0, 2.0};
  EXPECT_DOUBLE_EQ(*relative_spread(times), 0.0);
  std::vector<double> zeros = {0.0, 0.0, 0.0, 0.0};
  EXPECT_FALSE(relative_spread(zeros).has_value());
}

TEST(CycleStats, ClockNeedsEnoughTimeToBeatTimerGranularity) {
  CycleStats stats;
  stats.add(span(1980, 1000));  // 1 us at 1980 MHz: far too short to trust
  EXPECT_FALSE(stats.sm_mhz().has_value());
  for (int i = 0; i < 1000; ++i) stats.add(span(1980, 1000));
  ASSERT_TRUE(stats.sm_mhz().has_value());
  EXPECT_NEAR(*stats.sm_mhz(), 1980.0, 1e-9);
}

TEST(CycleStats, ClockIsTotalCyclesOverTotalTimeNotMeanOfRatios) {
  CycleStats stats;
  stats.add(span(100'000, 100'000));  // 1000 MHz
  stats.add(span(600'000, 200'000));  // 3000 MHz
  ASSERT_TRUE(stats.sm_mhz().has_value());
  EXPECT_NEAR(*stats.sm_mhz(), 700'000.0 / 300'000.0 * 1e3, 1e-9);
}

TEST(CycleStats, BackwardSpanIsAnError) {
  CycleStats stats;
  EXPECT_THROW(stats.add(CycleSpan{500, 100, 0, 1}), std::runtime_error);
}

TEST(CyclesToNs, ConvertsAtTheGivenClock) {
  EXPECT_DOUBLE_EQ(cycles_to_ns(1980.0, 1980.0), 1000.0);
  EXPECT_DOUBLE_EQ(cycles_to_ns(4.0, 2000.0), 2.0);
  EXPECT_THROW(cycles_to_ns(1.0, 0.0), std::invalid_argument);
}

TEST(CycleStats, ClockDriftComparesSegmentsOfEnoughTime) {
  CycleStats steady;
  for (int i = 0; i < 10; ++i) steady.add(span(20'000'000, 10'000'000));  // 2000 MHz, 10 ms each
  ASSERT_TRUE(steady.clock_drift().has_value());
  EXPECT_NEAR(*steady.clock_drift(), 0.0, 1e-12);

  CycleStats slowing;
  for (int i = 0; i < 2; ++i) slowing.add(span(20'000'000, 10'000'000));  // two segments at 2000 MHz
  for (int i = 0; i < 2; ++i) slowing.add(span(19'000'000, 10'000'000));  // two at 1900 MHz
  ASSERT_TRUE(slowing.clock_drift().has_value());
  EXPECT_NEAR(*slowing.clock_drift(), 100.0 / 1900.0, 1e-9);

  CycleStats short_run;
  for (int i = 0; i < 100; ++i) short_run.add(span(200'000, 100'000));  // 10 ms in all: one segment
  EXPECT_FALSE(short_run.clock_drift().has_value());
}

}  // namespace
}  // namespace gpubench
