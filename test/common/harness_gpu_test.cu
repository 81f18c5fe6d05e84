// A registered benchmark, run through a capturing reporter, emits the counters and context the
// harness promises.
#include "common/counter_names.h"
#include "common/detail/gpu_session.h"
#include "test/common/self_test_benchmark.h"
#include "test/gpu_test.h"

#include <gtest/gtest.h>

namespace gpubench::testing {

TEST(HarnessSelfTest, EmitsCyclesClockAndDeviceContext) {
  GPUBENCH_REQUIRE_GPU();
  GpuSession::get().add_benchmark_context();
  CapturingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, kSelfTestFilter);
  ASSERT_EQ(reporter.runs.size(), 1u);
  const auto& run = reporter.runs.front();
  ASSERT_FALSE(run_failed(run)) << run_message(run);
  EXPECT_EQ(run.iterations, 20);

  for (const char* name : {counters::kCycles, counters::kCyclesMin, counters::kNs, counters::kSmMhz})
    ASSERT_TRUE(run.counters.count(name)) << "missing counter " << name;
  const double cycles = run.counters.at(counters::kCycles).value;
  // The kernel spins 20000 cycles; the span adds a few reads of the clock.
  EXPECT_GE(cycles, 20000.0);
  EXPECT_LT(cycles, 21000.0);
  EXPECT_DOUBLE_EQ(run.counters.at("cycles_per_spin").value, cycles / 2.0);
  const double mhz = run.counters.at(counters::kSmMhz).value;
  EXPECT_GT(mhz, 100.0);
  EXPECT_LT(mhz, 5000.0);
  EXPECT_GT(run.real_accumulated_time, 0.0);

  EXPECT_NE(reporter.context_text.find("gpu_name: " + GpuSession::get().device().name), std::string::npos)
      << reporter.context_text;
  EXPECT_NE(reporter.context_text.find("gpu_sm_clock_mhz_measured"), std::string::npos);
}

// A row that fails leaves no CUDA error pending: the next row runs (it fails if it inherits one).
TEST(HarnessSelfTest, AFailedRowLeavesNoPendingErrorForTheNext) {
  GPUBENCH_REQUIRE_GPU();
  CapturingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, kFaultTestFilter);
  ASSERT_EQ(reporter.runs.size(), 2u);
  EXPECT_TRUE(run_failed(reporter.runs[0]));
  EXPECT_NE(run_message(reporter.runs[0]).find("on purpose"), std::string::npos) << run_message(reporter.runs[0]);
  EXPECT_FALSE(run_failed(reporter.runs[1])) << run_message(reporter.runs[1]);
}

}  // namespace gpubench::testing
