#include "common/build_config.h"
#include "common/gpu_fixture.h"

#include "common/counter_session.h"
#include "common/cycle_stats.h"

#include <atomic>
#include <cstdint>
#include <cmath>
#include <exception>
#include <numeric>
#include <vector>

namespace gpubench {
namespace {

std::atomic<int> g_failed{0};

// Coefficient of variation; Google Benchmark 1.8 computes it itself.
[[maybe_unused]] double coefficient_of_variation(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double squares = 0.0;
  for (double x : v) squares += (x - mean) * (x - mean);
  const double stddev = std::sqrt(squares / static_cast<double>(v.size() - 1));
  return mean == 0.0 ? 0.0 : stddev / mean;
}

}  // namespace

GpuFixture::GpuFixture() {
  UseManualTime();
#if !(GPUBENCH_BENCHMARK_VERSION_MAJOR > 1 || GPUBENCH_BENCHMARK_VERSION_MINOR >= 8)
  ComputeStatistics("cv", coefficient_of_variation, benchmark::StatisticUnit::kPercentage);
#endif
}

GpuFixture::GpuFixture(const std::string& name) : GpuFixture() { SetName(name.c_str()); }

int GpuFixture::failed_benchmarks() { return g_failed.load(); }

void GpuFixture::Run(benchmark::State& state) {
  try {
    SetUp(state);
    BenchmarkCase(state);
  } catch (const std::exception& e) {
    ++g_failed;
    state.SkipWithError(e.what());
  }
  try {
    TearDown(state);
  } catch (const std::exception& e) {
    if (!state.error_occurred()) {
      ++g_failed;
      state.SkipWithError(e.what());
    }
  }
}

void GpuFixture::run(benchmark::State& state, const Launch& launch) {
  GpuSession& session = gpu();
  const bool cold = GpuSession::cold_l2();
  // Untimed first launch: module load, first-touch of buffers and launch errors stay out of timing.
  if (cold) session.scrub_l2();
  session.untimed_launch(launch, 0);
  CycleStats warmup;
  session.collect_spans(1, warmup);

  CycleStats stats;
  int pending = 0;
  for (auto _ : state) {
    if (cold) session.scrub_l2();  // outside the events: only the launch is timed
    const float ms = session.timed_launch(launch, pending);
    state.SetIterationTime(static_cast<double>(ms) * 1e-3);
    if (++pending == session.span_capacity()) {
      session.collect_spans(pending, stats);
      pending = 0;
    }
  }
  session.collect_spans(pending, stats);

  last_mean_cycles_ = stats.mean_cycles();
  last_sm_mhz_ = stats.sm_mhz().value_or(session.calibrated_sm_mhz());
  state.counters[counters::kCycles] = last_mean_cycles_;
  state.counters[counters::kCyclesMin] = stats.min_cycles();
  state.counters[counters::kSmMhz] = last_sm_mhz_;
  state.counters[counters::kNs] = cycles_to_ns(last_mean_cycles_, last_sm_mhz_);
  report_counters(state, launch);
}

void GpuFixture::report_counters(benchmark::State& state, const Launch& launch) {
  // One profiled execution per case: Google Benchmark calls a case several times (iteration-count
  // trials, repetitions) with the same launch, whose counters do not change.
  std::vector<std::int64_t> case_key;
  for (int i = 0; i < ArgsCnt(); ++i) case_key.push_back(state.range(static_cast<std::size_t>(i)));
  auto found = counters_by_case_.find(case_key);
  if (found == counters_by_case_.end()) found = counters_by_case_.emplace(case_key, profile_counters(launch)).first;
  const std::map<std::string, double>& values = found->second;
  for (const auto& [name, value] : values) state.counters[name] = value;
  if (ideal_traffic_)
    for (const auto& [name, value] : derive_traffic_counters(values, *ideal_traffic_)) state.counters[name] = value;
}

std::map<std::string, double> GpuFixture::profile_counters(const Launch& launch) {
  GpuSession& session = gpu();
  std::map<std::string, double> values = CounterSession::get().profile(
      session.device().index, default_counters_, [&] { session.untimed_launch(launch, 0); },
      [&] {
        // Runs after the profiler has started (its start-up writes are in L2 by then): either
        // empty L2, or put back the state the timed launches saw.
        if (scrub_before_profiling_) {
          session.scrub_l2();
        } else if (rewarm_) {
          rewarm_(session.stream());
          GPUBENCH_CUDA_LAUNCHED();
          GPUBENCH_CUDA(cudaStreamSynchronize(session.stream()));
        } else {
          session.untimed_launch(launch, 0);
        }
      });
  CycleStats discard;
  if (!values.empty()) session.collect_spans(1, discard);  // re-poison the slot the profiled launch wrote
  return values;
}

double GpuFixture::untimed_cycles(const Launch& launch, int launches) {
  GpuSession& session = gpu();
  CycleStats stats;
  for (int i = 0; i < launches; ++i) session.untimed_launch(launch, i);
  session.collect_spans(launches, stats);
  return stats.mean_cycles();
}

void GpuFixture::report_per(benchmark::State& state, const std::string& unit, double count) const {
  state.counters[counters::per(counters::kCycles, unit)] = last_mean_cycles_ / count;
  state.counters[counters::per(counters::kNs, unit)] = cycles_to_ns(last_mean_cycles_, last_sm_mhz_) / count;
}

}  // namespace gpubench
