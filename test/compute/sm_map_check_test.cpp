// The per-SM map's host side: the slow SM and the wrong one are named, two blocks on one SM count as the worse,
// and clusters seen together group SMs by GPC.
#include "bench/compute/sm_map_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gpubench::sm_map {
namespace {

std::vector<SmReading> even(int sms, double value) {
  std::vector<SmReading> readings;
  for (int sm = 0; sm < sms; ++sm) readings.push_back({static_cast<std::uint32_t>(sm), value, 0});
  return readings;
}

TEST(SmMapCheck, ASlowSmIsTheWorstAgainstTheMedian) {
  std::vector<SmReading> readings = even(132, 256.0);
  readings[17].value = 128.0;  // a busy SM: half the rate
  const Map map = make_map(readings, /*lower_is_better=*/false, "the FP32 FMA map");
  EXPECT_DOUBLE_EQ(map.median, 256.0);
  EXPECT_DOUBLE_EQ(map.worst_vs_median, 0.5);
  EXPECT_EQ(map.worst_sm, 17u);
  EXPECT_EQ(map.wrong_sms, 0);
  EXPECT_TRUE(map.wrong_text.empty());
}

TEST(SmMapCheck, ASlowLatencyIsAHighOne) {
  std::vector<SmReading> readings = even(8, 300.0);
  readings[3].value = 400.0;
  const Map map = make_map(readings, /*lower_is_better=*/true, "the L2 latency map");
  EXPECT_DOUBLE_EQ(map.worst_vs_median, 0.75);
  EXPECT_EQ(map.worst_sm, 3u);
}

TEST(SmMapCheck, AWrongAnswerNamesItsSm) {
  std::vector<SmReading> readings = even(8, 1.0);
  readings[5].wrong = 3;
  readings[6].wrong = 1;
  const Map map = make_map(readings, false, "the mma.sync FP16 map");
  EXPECT_EQ(map.wrong_sms, 2);
  EXPECT_EQ(map.wrong_text, "wrong result from SM 5 in the mma.sync FP16 map (3 wrong answers) and 1 more SM(s)");
}

TEST(SmMapCheck, TwoBlocksOnOneSmCountAsTheWorseAndOneSm) {
  std::vector<SmReading> readings = even(4, 100.0);
  readings.push_back({2, 40.0, 0});
  const Map map = make_map(readings, false, "x");
  EXPECT_EQ(map.readings.size(), 4u);
  EXPECT_EQ(map.worst_sm, 2u);
  EXPECT_DOUBLE_EQ(map.worst_vs_median, 0.4);
}

TEST(SmMapCheck, FlippedBitsAreCountedPerBlock) {
  const std::vector<float> reference = fma_reference(4, 10);
  std::vector<float> answers;
  for (int block = 0; block < 3; ++block) answers.insert(answers.end(), reference.begin(), reference.end());
  EXPECT_EQ(wrong_per_block(answers, reference), (std::vector<int>{0, 0, 0}));
  answers[4 + 2] = std::nextafter(answers[4 + 2], 100.0f);  // the last bit of block 1's thread 2
  EXPECT_EQ(wrong_per_block(answers, reference), (std::vector<int>{0, 1, 0}));
}

TEST(SmMapCheck, ClustersSeenTogetherGroupSmsByGpc) {
  // Two GPCs of SMs {0, 1, 2, 3} and {4, 5, 6}; SM 7 never reached.
  const std::vector<int> groups = gpc_groups({{1, 0}, {2, 3}, {0, 3}, {6, 4}, {5, 6}}, 8);
  EXPECT_EQ(groups, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, -1}));
}

TEST(SmMapCheck, ChaseEndFollowsTheChain) {
  const std::vector<std::uint32_t> next = {2, 0, 3, 1};
  EXPECT_EQ(chase_end(next, 0, 1), 2u);
  EXPECT_EQ(chase_end(next, 0, 3), 1u);
  EXPECT_EQ(chase_end(next, 0, 4), 0u);
}

}  // namespace
}  // namespace gpubench::sm_map
