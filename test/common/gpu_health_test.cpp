// A GPU's health record: faults planted over real readings (the real ones kept beside them), a plant for another GPU
// left out, bad plants refused, and the kernel log's Xid lines matched to their GPU by PCI bus id.
#include "common/detail/gpu_health.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gpubench::detail {
namespace {

nlohmann::ordered_json healthy() {
  return {{"start", {{"remap_pending", false}, {"nvlinks_active", 18}, {"nvlink_crc_flit", 0}, {"crc", {0, 0}}}},
          {"end", {{"remap_pending", false}, {"nvlinks_active", 18}, {"nvlink_crc_flit", 0}, {"crc", {0, 0}}}},
          {"xid_during", nlohmann::ordered_json::array()}};
}

TEST(GpuHealth, APlantSetsBothReadingsOrTheEndsAndKeepsTheRealOnes) {
  nlohmann::ordered_json record = healthy();
  plant_health(record, "remap_pending=true,nvlinks_active=17,end.nvlink_crc_flit=9000,end.crc.1=500,xid=79", 2);
  EXPECT_EQ(record["end"]["crc"], nlohmann::ordered_json::array({0, 500}));
  EXPECT_EQ(record["start"]["crc"], nlohmann::ordered_json::array({0, 0}));
  EXPECT_EQ(record["start"]["remap_pending"], true);
  EXPECT_EQ(record["end"]["remap_pending"], true);
  EXPECT_EQ(record["end"]["nvlinks_active"], 17);
  EXPECT_EQ(record["start"]["nvlink_crc_flit"], 0);
  EXPECT_EQ(record["end"]["nvlink_crc_flit"], 9000);
  EXPECT_EQ(record["xid_during"], nlohmann::ordered_json::array({79}));
  EXPECT_EQ(record["real"], healthy());
  EXPECT_EQ(record["planted"], "remap_pending=true,nvlinks_active=17,end.nvlink_crc_flit=9000,end.crc.1=500,xid=79");
}

TEST(GpuHealth, APlantForAnotherGpuLeavesThisOneAlone) {
  nlohmann::ordered_json record = healthy();
  plant_health(record, "remap_failed=true@3", 1);
  EXPECT_EQ(record, healthy());
  plant_health(record, "remap_failed=true@1", 1);
  EXPECT_EQ(record["end"]["remap_failed"], true);
}

TEST(GpuHealth, ABadPlantIsRefusedWithItsItem) {
  nlohmann::ordered_json record = healthy();
  EXPECT_THROW(plant_health(record, "remap_pending", 0), std::invalid_argument);
  EXPECT_THROW(plant_health(record, "xid=fell-off", 0), std::invalid_argument);
  EXPECT_THROW(plant_health(record, "remap_failed=true@x", 0), std::invalid_argument);
  EXPECT_THROW(plant_health(record, "end.crc.2=5", 0), std::invalid_argument);
  try {
    plant_health(record, "a=1,=2", 0);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'=2'"), std::string::npos) << e.what();
  }
}

TEST(GpuHealth, KernelLogXidsAreThisGpusByBusId) {
  const std::string log =
      "6,1234,5678,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n"
      "6,1235,5679,-;NVRM: Xid (PCI:0000:2a:00): 48, pid=77, An uncorrectable double bit error\n"
      "4,1236,5680,-;usb 1-1: new device\n";
  const nlohmann::ordered_json found = kernel_log_xids(log, "00000000:18:00.0");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["xid"], 79);
  EXPECT_EQ(kernel_log_xids(log, "00000000:2A:00.0")[0]["xid"], 48);
  EXPECT_TRUE(kernel_log_xids(log, "00000000:3b:00.0").empty());
}

}  // namespace
}  // namespace gpubench::detail
