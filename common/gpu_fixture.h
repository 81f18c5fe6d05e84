// The base fixture of every GPU experiment. It owns timing (CUDA events, manual time), cycles
// (clock64 spans the kernel stamps), the SM clock, and turns any exception into a skipped
// benchmark so one failure never ends the run. An experiment only launches its kernel.
#pragma once

#include "common/benchmark_compat.h"
#include "common/clocks.h"
#include "common/counter_names.h"
#include "common/gpu_session.h"
#include "common/traffic.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

class GpuFixture : public benchmark::Fixture {
 public:
  GpuFixture();
  // For families registered from a table at run time (see register_case): the benchmark's name.
  explicit GpuFixture(const std::string& name);
  void Run(benchmark::State& state) override;

  // Benchmarks that ended in an error in this process (gpubench's exit status uses it).
  static int failed_benchmarks();

 protected:
  // Times `launch` once per iteration and reports cycles, cycles_min, ns and sm_mhz; then, outside
  // the timed loop, profiles the launch for the hardware counters (once per case: later trials and
  // repetitions of the same args report the same values): once per pass the counters need, each
  // after an L2 scrub (run after the profiler starts, so its own writes are gone too).
  // `launch` must do the same work every time it is called.
  void run(benchmark::State& state, const Launch& launch);
  // The counters this experiment reports by default (names from common/metric_table.cpp).
  void set_default_counters(std::vector<std::string> names) { default_counters_ = std::move(names); }
  // Profile in the cache state the timed launches saw instead of after an L2 scrub: for experiments
  // whose counters must say which level served the timed loads (pointer chasing). Before each pass,
  // after the profiler's own start-up writes, `rewarm` restores that state (default: one more launch).
  void profile_with_warm_caches(std::function<void(cudaStream_t)> rewarm = {}) {
    scrub_before_profiling_ = false;
    rewarm_ = std::move(rewarm);
  }
  // The least traffic the next run() could move; adds <bytes>_per_element and *_normalized.
  void set_ideal_traffic(const IdealTraffic& ideal) { ideal_traffic_ = ideal; }
  // Mean cycles of a few untimed launches: a baseline measured in the same run.
  double untimed_cycles(const Launch& launch, int launches = 5);
  // <quantity>_per_<unit> for cycles and ns of the last run(), e.g. cycles_per_path.
  void report_per(benchmark::State& state, const std::string& unit, double count) const;

  double cycles() const { return last_mean_cycles_; }
  double sm_mhz() const { return last_sm_mhz_; }
  GpuSession& gpu() const { return GpuSession::get(); }

 private:
  void report_counters(benchmark::State& state, const Launch& launch);
  std::map<std::string, double> profile_counters(const Launch& launch);

  double last_mean_cycles_ = 0.0;
  double last_sm_mhz_ = 0.0;
  std::vector<std::string> default_counters_;
  std::optional<IdealTraffic> ideal_traffic_;
  bool scrub_before_profiling_ = true;
  std::function<void(cudaStream_t)> rewarm_;
  std::map<std::vector<std::int64_t>, std::map<std::string, double>> counters_by_case_;  // key: the case's args
};

// Registers one fixture instance, for families generated from a table rather than written out
// with BENCHMARK_DEFINE_F (what BENCHMARK_REGISTER_F does underneath).
template <class Case, class... Args>
benchmark::internal::Benchmark* register_case(Args&&... args) {
  return benchmark::internal::RegisterBenchmarkInternal(new Case(std::forward<Args>(args)...));
}

}  // namespace gpubench
