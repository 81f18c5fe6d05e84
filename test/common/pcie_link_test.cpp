// The PCIe link's theoretical rate by generation and width, and work placed on a NUMA node's CPUs.
#include "common/pcie_link.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpubench {
namespace {

TEST(PcieLink, TheoreticalRateByGenerationAndWidth) {
  EXPECT_NEAR(pcie_gbs(5, 16), 63.02, 0.01);  // 32 GT/s x 16 lanes, 128b/130b
  EXPECT_NEAR(pcie_gbs(4, 16), 31.51, 0.01);
  EXPECT_NEAR(pcie_gbs(3, 8), 7.88, 0.01);
  EXPECT_NEAR(pcie_gbs(2, 16), 8.0, 1e-9);  // 8b/10b
  EXPECT_EQ(pcie_gbs(0, 16), 0.0);
  EXPECT_EQ(pcie_gbs(9, 16), 0.0);
}

TEST(PcieLink, WorkOnANodeRunsAndWhatItThrowsComesBack) {
  int ran = 0;
  on_numa_node(0, [&] { ++ran; });
  on_numa_node(-1, [&] { ++ran; });
  on_numa_node(12345, [&] { ++ran; });  // a node the host lacks: anywhere
  EXPECT_EQ(ran, 3);
  EXPECT_THROW(on_numa_node(0, [] { throw std::runtime_error("no memory"); }), std::runtime_error);
}

}  // namespace
}  // namespace gpubench
