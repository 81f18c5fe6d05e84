#include "common/device_info.h"
#include "common/arch_table.h"
#include "common/arg_cache.h"
#include "common/counter_names.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {
namespace {

DeviceInfo h100_sxm() {
  DeviceInfo info;
  info.name = "NVIDIA H100 80GB HBM3";
  info.major = 9;
  info.minor = 0;
  info.sm_count = 132;
  info.memory_clock_mhz = 2619;
  info.memory_bus_width_bits = 5120;
  info.l2_bytes = 52428800;
  info.driver_version = 13000;
  info.runtime_version = 13000;
  return info;
}

TEST(DeviceInfo, TheoreticalDramBandwidthIsDoubleDataRateOverTheBus) {
  // 2 x 2619 MHz x 640 bytes = 3352 GB/s, the H100 SXM datasheet's 3.35 TB/s.
  EXPECT_NEAR(h100_sxm().theoretical_dram_gbs(), 3352.3, 0.1);
}

TEST(DeviceInfo, FormatsCudaVersions) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
}

TEST(DeviceInfo, ContextHoldsTheHeaderRowsAndPeaksAtTheMeasuredClock) {
  std::map<std::string, std::string> rows;
  for (const auto& [key, value] : device_context(h100_sxm(), 1980.0)) {
    EXPECT_TRUE(rows.emplace(key, value).second) << "duplicate key " << key;
  }
  EXPECT_EQ(rows.at("gpu_name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rows.at("gpu_compute_capability"), "9.0");
  EXPECT_EQ(rows.at("gpu_sm_clock_mhz_measured"), "1980");
  EXPECT_EQ(rows.at("gpu_dram_bandwidth_theoretical_gbs"), "3352.3");
  // 132 SMs x 128 FMA x 2 flops x 1.98 GHz = 66.9 TFLOP/s; FP64 half of that.
  EXPECT_EQ(rows.at("gpu_fp32_peak_tflops_at_measured_clock"), "66.9");
  EXPECT_EQ(rows.at("gpu_fp64_peak_tflops_at_measured_clock"), "33.5");
  EXPECT_EQ(rows.at("cuda_driver_version"), "13.0");
  for (const char* key : {"gpu_l2_bytes", "gpu_sm_count", "gpu_registers_per_sm", "gpu_memory_bus_width_bits",
                          "gpu_shared_memory_per_sm_bytes", "cuda_runtime_version"})
    EXPECT_TRUE(rows.count(key)) << key;
}

TEST(ArchTable, KnowsHopperAndAmpereAndNotTheUnknown) {
  ASSERT_TRUE(arch_throughput(9, 0).has_value());
  EXPECT_EQ(arch_throughput(9, 0)->fp32_fma_per_sm_per_clock, 128);
  EXPECT_EQ(arch_throughput(8, 0)->fp32_fma_per_sm_per_clock, 64);
  EXPECT_EQ(arch_throughput(8, 0)->fp64_fma_per_sm_per_clock, 32);
  EXPECT_FALSE(arch_throughput(5, 2).has_value());
  std::map<std::string, std::string> rows;
  DeviceInfo old = h100_sxm();
  old.major = 5;
  old.minor = 2;
  for (const auto& [key, value] : device_context(old, 1000.0)) rows[key] = value;
  EXPECT_EQ(rows.at("gpu_fp32_peak_tflops_at_measured_clock"), "unknown for sm_52");
}

// Each tensor-core rate reproduces the published dense figure it was taken from: rate x 2 x SMs x clock.
TEST(ArchTable, TensorRatesReproduceTheirPublishedFigures) {
  int checked = 0;
  for (const auto& [major, minor] : std::vector<std::pair<int, int>>{{7, 0}, {7, 5}, {8, 0}, {8, 6}, {9, 0}}) {
    const auto peaks = tensor_peaks(major, minor);
    ASSERT_TRUE(peaks.has_value()) << major << minor;
    for (const TensorRate& rate : {peaks->f16, peaks->bf16, peaks->tf32, peaks->fp8, peaks->int8, peaks->fp64}) {
      if (rate.fma_per_sm_per_clock == 0) continue;
      EXPECT_NEAR(peak_tflops(rate.fma_per_sm_per_clock, peaks->sm_count, rate.published_mhz), rate.published_tflops,
                  0.005 * rate.published_tflops)  // published to three or four digits
          << peaks->gpu << ": " << rate.fma_per_sm_per_clock << " FMA/clk/SM at " << rate.published_mhz << " MHz";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 18);
  EXPECT_EQ(tensor_peaks(9, 0)->f16.fma_per_sm_per_clock, 2048);
  EXPECT_EQ(tensor_peaks(9, 0)->fp8.fma_per_sm_per_clock, 4096);
  EXPECT_EQ(tensor_peaks(8, 0)->fp8.fma_per_sm_per_clock, 0);  // Ampere has no FP8
  EXPECT_FALSE(tensor_peaks(5, 2).has_value());
}

TEST(CounterNames, PerUnitNames) { EXPECT_EQ(counters::per(counters::kCycles, "path"), "cycles_per_path"); }

TEST(ArgCache, BuildsOncePerArgumentsAndRebuildsOnChange) {
  ArgCache<int> cache;
  int builds = 0;
  auto make = [&] { return ++builds * 10; };
  EXPECT_EQ(cache.get({1, 2}, make), 10);
  EXPECT_EQ(cache.get({1, 2}, make), 10);
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(cache.get({1, 3}, make), 20);
  EXPECT_EQ(cache.get({1, 2}, make), 30);  // one entry only: old setups are freed
  EXPECT_EQ(builds, 3);
}

}  // namespace
}  // namespace gpubench
