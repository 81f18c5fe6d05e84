// CUPTI counters against traffic that is known by construction.
#include "bench/shared/bank_model.h"
#include "common/cupti/cupti_profiler.h"
#include "common/cupti/metric_table.h"
#include "common/detail/gpu_session.h"
#include "common/device_memory.h"
#include "common/dispatch.h"
#include "kernels/memory/stream.cuh"
#include "kernels/shared/bank_conflict.cuh"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {
namespace {

// Profiles `launch` for the named counters; skips the test (saying why) only where this machine
// does not allow profiling at all.
class CuptiCounters : public ::testing::Test {
 protected:
  void SetUp() override { GPUBENCH_REQUIRE_GPU(); }

  std::optional<std::map<std::string, double>> profile(const std::vector<std::string>& counters,
                                                       const std::function<void()>& launch,
                                                       const std::function<void()>& prepare = {}) {
    std::vector<const MetricSpec*> specs;
    for (const std::string& name : counters) specs.push_back(find_metric(name));
    const std::vector<std::string> metrics = perfworks_metrics(specs);
    try {
      CuptiProfiler profiler(GpuSession::get().device().index, metrics);
      const std::vector<double> values = profiler.profile(
          [&] {
            launch();
            GPUBENCH_CUDA_LAUNCHED();
            GPUBENCH_CUDA(cudaDeviceSynchronize());
          },
          prepare);
      return counter_values(specs, metrics, values);
    } catch (const CuptiError& e) {
      if (!e.profiling_unavailable()) throw;
      skip_reason_ = e.what();
      return std::nullopt;
    }
  }
  std::string skip_reason_;
};

// A stream copy of `bytes` (input filled), launched on the legacy stream as the tests profile it.
struct Copy {
  explicit Copy(std::size_t bytes) : count(bytes / sizeof(float4)), in(count), out(count) { in.fill_bytes(1); }
  void launch(int blocks) const {
    kernels::stream<kernels::StreamOp::kCopy, float4>
        <<<blocks, 256>>>({in.data(), nullptr, out.data(), nullptr}, count, 0.0f, Clocks{});
  }
  std::size_t count;
  DeviceBuffer<float4> in, out;
};

TEST_F(CuptiCounters, CopyFarBeyondL2ReadsItsBytesFromDramOnce) {
  const std::size_t bytes = std::size_t{512} << 20;  // several times any Hopper L2
  const Copy copy(bytes);
  const auto values = profile({"dram_read_bytes", "l2_read_bytes", "l2_write_bytes"}, [&] { copy.launch(1024); });
  if (!values) GTEST_SKIP() << skip_reason_;
  EXPECT_NEAR(values->at("dram_read_bytes"), static_cast<double>(bytes), 0.02 * bytes);
  EXPECT_NEAR(values->at("l2_read_bytes"), static_cast<double>(bytes), 0.02 * bytes);
  EXPECT_NEAR(values->at("l2_write_bytes"), static_cast<double>(bytes), 0.02 * bytes);
}

// Write-back: a kernel's last writes may still be dirty in L2 when it ends. Emptying L2 after the
// copy, inside the profiled range, must bring the DRAM writes to exactly the bytes written, which
// also shows the range starts clean (the profiler's own start-up writes were scrubbed away).
TEST_F(CuptiCounters, CopyFollowedByAnL2ScrubWritesEveryByteToDramOnce) {
  const std::size_t bytes = std::size_t{512} << 20;
  const Copy copy(bytes);
  GpuSession& session = GpuSession::get();
  const auto values = profile(
      {"dram_write_bytes"},
      [&] {
        copy.launch(1024);
        GPUBENCH_CUDA_LAUNCHED();
        GPUBENCH_CUDA(cudaDeviceSynchronize());
        session.scrub_l2();
      },
      [&] { session.scrub_l2(); });
  if (!values) GTEST_SKIP() << skip_reason_;
  EXPECT_NEAR(values->at("dram_write_bytes"), static_cast<double>(bytes), 0.01 * bytes);
}

TEST_F(CuptiCounters, CopyWellInsideL2ReadsItsBytesFromL2Once) {
  const std::size_t bytes = std::size_t{4} << 20;
  const Copy copy(bytes);
  const auto values = profile({"l2_read_bytes"}, [&] { copy.launch(256); });
  if (!values) GTEST_SKIP() << skip_reason_;
  EXPECT_NEAR(values->at("l2_read_bytes"), static_cast<double>(bytes), 0.02 * bytes);
}

// The SMs' L2 hit rate is a share: a copy whose 8 MiB were just read and written (so both buffers sit
// in L2) hits on nearly every read, and never on more than all of them.
TEST_F(CuptiCounters, L2HitRateOfACopyInsideL2IsNearlyAllAndAtMostAll) {
  const Copy copy(std::size_t{4} << 20);
  const auto values = profile(
      {"l2_hit_rate", "l2_read_bytes"}, [&] { copy.launch(256); },
      [&] {
        copy.launch(256);
        GPUBENCH_CUDA_LAUNCHED();
        GPUBENCH_CUDA(cudaDeviceSynchronize());
      });
  if (!values) GTEST_SKIP() << skip_reason_;
  EXPECT_GT(values->at("l2_hit_rate"), 95.0);
  EXPECT_LE(values->at("l2_hit_rate"), 100.0);
}

// The bank model (bench/shared/bank_model) against the hardware: every stride and width, and the
// tile layouts, take exactly the wavefronts it predicts; a k-way 4-byte conflict costs k - 1.
TEST_F(CuptiCounters, SharedLoadsTakeThePredictedWavefronts) {
  constexpr int kLoads = 256;
  DeviceBuffer<float> out(32);
  // The counter `metric` for kLoads loads per lane at these byte addresses, in elements of decltype(element).
  const auto profiled = [&](auto element, const std::vector<std::uint32_t>& addresses, const char* metric) {
    using T = decltype(element);
    kernels::LaneElements lanes{};
    for (int lane = 0; lane < 32; ++lane) lanes.index[lane] = static_cast<int>(addresses[lane] / sizeof(T));
    const auto values =
        profile({metric}, [&] { kernels::shared_pattern<T><<<1, 32>>>(out.data(), lanes, kLoads, Clocks{}); });
    return values ? std::optional<double>(values->at(metric)) : std::nullopt;
  };
  for (int stride : {1, 2, 3, 4, 5, 8, 16, 32}) {
    for (int bytes : {4, 8, 16}) {
      std::vector<std::uint32_t> addresses(32);
      for (int lane = 0; lane < 32; ++lane) addresses[lane] = static_cast<std::uint32_t>(lane * stride * bytes);
      const auto measured = dispatch<4, 8, 16>(bytes, [&](auto width) {
        using T = std::conditional_t<width() == 4, float, std::conditional_t<width() == 8, float2, float4>>;
        return profiled(T{}, addresses, "shared_ld_wavefronts");
      });
      if (!measured) GTEST_SKIP() << skip_reason_;
      EXPECT_EQ(*measured, static_cast<double>(kLoads) * shared_wavefronts(addresses, bytes))
          << bytes << "-byte elements at stride " << stride;
    }
    std::vector<std::uint32_t> words(32);
    for (int lane = 0; lane < 32; ++lane) words[lane] = static_cast<std::uint32_t>(lane * stride * 4);
    const auto conflicts = profiled(float{}, words, "shared_ld_bank_conflicts");
    if (!conflicts) GTEST_SKIP() << skip_reason_;
    EXPECT_EQ(*conflicts, static_cast<double>(kLoads) * (stride_conflict_degree(stride) - 1)) << "stride " << stride;
  }
  for (TileLayout layout : {TileLayout::kNaive, TileLayout::kPadded, TileLayout::kSwizzled}) {
    const std::vector<std::uint32_t> addresses = column_read_addresses(layout, 5);
    const auto measured = profiled(float{}, addresses, "shared_ld_wavefronts");
    if (!measured) GTEST_SKIP() << skip_reason_;
    EXPECT_EQ(*measured, static_cast<double>(kLoads) * shared_wavefronts(addresses, 4))
        << "tile layout " << static_cast<int>(layout);
  }
}

TEST_F(CuptiCounters, UnknownMetricFailsNamingIt) {
  try {
    CuptiProfiler profiler(GpuSession::get().device().index, {"dram__bytes_read.sum", "gpubench__no_such_metric.sum"});
    FAIL() << "expected UnsupportedMetric";
  } catch (const UnsupportedMetric& e) {
    EXPECT_EQ(e.metric(), "gpubench__no_such_metric.sum");
    EXPECT_NE(std::string(e.what()).find("gpubench__no_such_metric.sum"), std::string::npos) << e.what();
  } catch (const CuptiError& e) {
    if (!e.profiling_unavailable()) throw;
    GTEST_SKIP() << e.what();
  }
}

}  // namespace
}  // namespace gpubench
