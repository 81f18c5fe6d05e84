// Without a GPU, a GPU benchmark must end as one skipped row with a one-line reason, not a crash.
#include "common/benchmark_compat.h"
#include "common/detail/cycle_stats.h"
#include "common/detail/gpu_session.h"
#include "common/experiment.h"
#include "test/common/self_test_benchmark.h"

#include <gtest/gtest.h>

namespace gpubench::testing {

TEST(HarnessWithoutGpu, BenchmarkBecomesAnErrorRowWithOneLineReason) {
  if (!GpuSession::unavailable_reason()) GTEST_SKIP() << "a GPU is present; this covers the no-GPU path";
  CapturingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, kSelfTestFilter);
  ASSERT_EQ(reporter.runs.size(), 1u);
  const auto& run = reporter.runs.front();
  EXPECT_TRUE(run_failed(run));
  const std::string message = run_message(run);
  EXPECT_NE(message.find("GPU"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

}  // namespace gpubench::testing

namespace gpubench {
namespace {

// An sm_90a build runs natively on every sm_90 GPU: the session must not warn that it JIT-compiles.
TEST(BuildArchitectures, ArchitectureSpecificSassCountsAsNativeCode) {
  EXPECT_TRUE(architectures_have_sass_for("90a-real", 9, 0));
  EXPECT_TRUE(architectures_have_sass_for("80-real;90a-real;100-real;100-virtual", 9, 0));
  EXPECT_TRUE(architectures_have_sass_for("90", 9, 0));
  EXPECT_TRUE(architectures_have_sass_for("100f-real", 10, 0));
  EXPECT_FALSE(architectures_have_sass_for("90-virtual", 9, 0));
  EXPECT_FALSE(architectures_have_sass_for("80-real;100-virtual", 10, 0));
  EXPECT_FALSE(architectures_have_sass_for("90a-real", 8, 9));
}

}  // namespace
}  // namespace gpubench

namespace gpubench {
namespace {

// A latency row reports its fastest launch; the mean stays in `cycles` and the clock is kept.
TEST(FastestLaunch, TakesTheFastestLaunchsCyclesAtTheMeasuredClock) {
  RunResult measured;
  measured.cycles = 561221.0;
  measured.cycles_min = 543920.0;
  measured.sm_mhz = 1980.0;
  measured.ns = cycles_to_ns(measured.cycles, measured.sm_mhz);
  const RunResult fastest = fastest_launch(measured);
  EXPECT_DOUBLE_EQ(fastest.cycles, 543920.0);
  EXPECT_DOUBLE_EQ(fastest.cycles_min, 543920.0);
  EXPECT_DOUBLE_EQ(fastest.sm_mhz, 1980.0);
  EXPECT_DOUBLE_EQ(fastest.ns, cycles_to_ns(543920.0, 1980.0));
  EXPECT_DOUBLE_EQ(measured.cycles, 561221.0);
}

}  // namespace
}  // namespace gpubench
