#include "bench/multigpu/peer_memory.h"

#include <gtest/gtest.h>

namespace gpubench {
namespace {

TEST(NvlinkStatus, EachGpuGetsItsOwnActiveLinks) {
  const std::string text =
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n"
      "\t Link 0: 26.562 GB/s\n"
      "\t Link 1: 26.562 GB/s\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-b)\n"
      "\t Link 0: <inactive>\n"
      "\t Link 1: 26.562 GB/s\n"
      "GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-c)\n";
  const auto found = parse_nvlink_status(text);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found.at(0).links, 2);
  EXPECT_DOUBLE_EQ(found.at(0).gbs_per_direction, 2 * 26.562);
  EXPECT_EQ(found.at(1).links, 1);
  EXPECT_EQ(found.at(2).links, 0);  // a GPU without NVLink
}

TEST(NvlinkStatus, NoOutputMeansNoLinks) { EXPECT_TRUE(parse_nvlink_status("").empty()); }

}  // namespace
}  // namespace gpubench
