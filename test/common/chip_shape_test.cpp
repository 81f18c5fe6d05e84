// Quick-preset points from the chip's sizes: on an H100's shape they are the points the preset used
// when they were constants; on other shapes they still straddle each edge.
#include "common/chip_shape.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpubench {
namespace {

constexpr std::int64_t KiB = 1024, MiB = KiB * KiB, GiB = KiB * MiB;

TEST(ChipShape, H100PointsAreThoseTheQuickPresetHad) {
  const ChipShape h100 = default_chip_shape();
  EXPECT_EQ(l1_edge_sets(h100),
            (std::vector<std::int64_t>{16 * KiB, 64 * KiB, 128 * KiB, 192 * KiB, 256 * KiB, 384 * KiB}));
  EXPECT_EQ(l2_edge_sets(h100), (std::vector<std::int64_t>{1 * MiB, 4 * MiB, 12 * MiB, 16 * MiB, 24 * MiB, 32 * MiB,
                                                           40 * MiB, 48 * MiB, 64 * MiB, 256 * MiB, GiB}));
  EXPECT_EQ(sets_below(static_cast<std::int64_t>(l1_bytes_at_carveout(h100, 0))),
            (std::vector<std::int64_t>{160 * KiB, 192 * KiB, 224 * KiB, 256 * KiB}));
  EXPECT_EQ(far_l2_set(h100), 40 * MiB);
}

// Every edge of a shape has points on both sides: below and above L1, half of L2, L2.
void expect_straddles(const ChipShape& shape) {
  const std::vector<std::int64_t> l1 = l1_edge_sets(shape), l2 = l2_edge_sets(shape);
  const auto l1_bytes = static_cast<std::int64_t>(shape.l1_shared_bytes);
  const auto l2_bytes = static_cast<std::int64_t>(shape.l2_bytes);
  auto below_and_above = [](const std::vector<std::int64_t>& sets, std::int64_t edge) {
    return std::count_if(sets.begin(), sets.end(), [&](std::int64_t s) { return s < edge; }) >= 2 &&
           std::count_if(sets.begin(), sets.end(), [&](std::int64_t s) { return s > edge; }) >= 1;
  };
  EXPECT_TRUE(below_and_above(l1, l1_bytes * 3 / 4));
  EXPECT_TRUE(below_and_above(l2, l2_bytes / 2));
  EXPECT_TRUE(below_and_above(l2, l2_bytes * 9 / 10));
  EXPECT_GE(l2.back(), 4 * l2_bytes);  // DRAM
  EXPECT_TRUE(std::is_sorted(l2.begin(), l2.end()));
  for (int percent : {0, 50, 100}) {
    const auto capacity = static_cast<std::int64_t>(l1_bytes_at_carveout(shape, percent));
    const std::vector<std::int64_t> sets = sets_below(capacity);
    EXPECT_EQ(sets.size(), 4u) << percent;
    EXPECT_LE(sets.front(), capacity * 3 / 4) << percent;
    EXPECT_GE(sets.back(), capacity) << percent;
  }
}

TEST(ChipShape, OtherChipsGetPointsAroundTheirOwnEdges) {
  expect_straddles(default_chip_shape());
  expect_straddles(ChipShape{132, 256 * KiB, 228 * KiB, 60 * MiB, true});  // H200
  expect_straddles(ChipShape{108, 192 * KiB, 164 * KiB, 40 * MiB, true});  // A100
  expect_straddles(ChipShape{58, 128 * KiB, 100 * KiB, 48 * MiB, true});   // L4
  expect_straddles(ChipShape{40, 96 * KiB, 64 * KiB, 4 * MiB, true});      // T4
}

TEST(ChipShape, UnifiedL1ComesFromTheTableOrTheLargestCarveout) {
  EXPECT_EQ(unified_l1_bytes(9, 0, 228 * KiB), 256u * KiB);
  EXPECT_EQ(unified_l1_bytes(8, 0, 164 * KiB), 192u * KiB);
  EXPECT_EQ(unified_l1_bytes(99, 9, 100 * KiB), 128u * KiB);  // not in the table
}

TEST(ChipShape, WithoutAGpuRegistrationUsesTheDefaults) {
  const ChipShape shape = chip_shape(0);
  if (shape.from_device) GTEST_SKIP() << "a GPU answered; this covers the machine without one";
  EXPECT_EQ(shape.l2_bytes, default_chip_shape().l2_bytes);
  EXPECT_EQ(shape.sm_count, 132);
}

}  // namespace
}  // namespace gpubench
