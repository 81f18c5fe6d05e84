#include "common/experiment.h"

#include "common/counter_names.h"
#include "common/cuda_check.h"
#include "common/cupti/counter_session.h"
#include "common/detail/cycle_stats.h"
#include "common/detail/gpu_session.h"
#include "common/detail/precision.h"
#include "common/detail/run_control.h"
#include "common/detail/running_case.h"
#include "common/power.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

constexpr double kMinClockFraction = 0.97;  // of the rated SM clock
constexpr double kMaxClockDrift = 0.01;
constexpr double kMinPowerWindowS = 0.015;

// One profiled launch (once per pass the counters need), each pass started from a known cache
// state: an empty L2, or the state the timed launches saw.
detail::CounterValues profile_counters(const Launch& launch, const RunOptions& options) {
  const detail::TimedPart timed("counter passes");
  GpuSession& session = GpuSession::get();
  detail::CounterValues values = CounterSession::get().profile(
      session.device().index, options.counters, [&] { session.untimed_launch(launch, 0); },
      [&] {
        // Runs after the profiler has started (a freshly enabled one's writes are in L2 by then).
        if (!options.profile_warm) {
          session.scrub_l2();
        } else if (options.rewarm) {
          options.rewarm(session.stream());
          GPUBENCH_CUDA_LAUNCHED();
          GPUBENCH_CUDA(cudaStreamSynchronize(session.stream()));
        } else {
          session.untimed_launch(launch, 0);
        }
      },
      [&] { session.scrub_l2(); });  // CUPTI's own writes out of L2 before a warm row re-warms it
  CycleStats discard;
  // Re-poison the span slot the profiled launch wrote.
  if (!values.empty() && options.stamps_cycles) session.collect_spans(1, discard);
  if (options.ideal_traffic)
    for (const auto& [name, value] : derive_traffic_counters(values, *options.ideal_traffic)) values[name] = value;
  return values;
}

// Profiled once per case: Google Benchmark calls a case several times (iteration-count trials,
// repetitions) with the same launch, whose counters do not change.
detail::CounterValues counters_of_case(const Launch& launch, const RunOptions& options) {
  detail::RunningCase* running = detail::running_case();
  if (running == nullptr) return profile_counters(launch, options);
  auto& by_args = running->counters->by_args;
  auto found = by_args.find(running->args);
  if (found == by_args.end()) found = by_args.emplace(running->args, profile_counters(launch, options)).first;
  return found->second;
}

// Conditions that spoil a row's numbers, said on the row (its label) rather than absorbed.
std::string clock_warning(const CycleStats& stats, int max_sm_mhz) {
  std::string warning;
  const std::optional<double> mhz = stats.sm_mhz();
  if (mhz && max_sm_mhz > 0 && *mhz < kMinClockFraction * max_sm_mhz)
    warning = "SM clock " + std::to_string(static_cast<int>(*mhz)) + " MHz, under 97% of the rated " +
              std::to_string(max_sm_mhz) + " MHz";
  if (const std::optional<double> drift = stats.clock_drift(); drift && *drift > kMaxClockDrift) {
    char text[64];
    std::snprintf(text, sizeof text, "SM clock drifted %.1f%% during the run", *drift * 100.0);
    warning += (warning.empty() ? "" : "; ") + std::string(text);
  }
  return warning;
}

}  // namespace

std::optional<double> RunResult::counter(const std::string& name) const {
  const auto found = counters.find(name);
  if (found == counters.end()) return std::nullopt;
  return found->second;
}

bool run_interrupted() { return detail::interrupted(); }

RunResult run(benchmark::State& state, const Launch& launch, const RunOptions& options) {
  GpuSession& session = GpuSession::get();
  const bool cold = options.cold_l2.value_or(GpuSession::cold_l2());
  const bool stamps = options.stamps_cycles;
  // Untimed first launch: module load, first touch of buffers and launch errors stay out of timing.
  if (cold) session.scrub_l2();
  const auto first_start = std::chrono::steady_clock::now();
  session.untimed_launch(launch, 0);
  const double first_launch_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - first_start).count();
  // Under a stopping rule the row is one Google Benchmark iteration that samples until its means are known.
  const detail::StoppingRule* rule = state.max_iterations == 1 ? detail::stopping_rule() : nullptr;
  // NVML's power window costs ~10 ms of reads; Google Benchmark's short early trials (1, 10, 100 launches) get
  // none: a trial predicted shorter than kMinPowerWindowS is never its case's final one (min time 0.02 s or more).
  const double planned_launches =
      rule != nullptr ? static_cast<double>(rule->min_samples) : static_cast<double>(state.max_iterations);
  const bool watch_power = first_launch_s * planned_launches >= kMinPowerWindowS;
  CycleStats warmup;
  if (stamps) session.collect_spans(1, warmup);

  CycleStats stats;
  std::vector<double> launch_ms;  // every timed launch, in order: the row's spread and its precision
  launch_ms.reserve(static_cast<std::size_t>(rule != nullptr ? 1024 : state.max_iterations));
  int pending = 0;
  const auto timed_launch = [&] {
    if (detail::interrupted()) throw std::runtime_error("interrupted");
    if (cold) session.scrub_l2();  // outside the events: only the launch is timed
    const detail::TimedPart timed("timed launches");
    const float ms = session.timed_launch(launch, pending);
    detail::add_gpu_time(static_cast<double>(ms) * 1e-3);
    launch_ms.push_back(static_cast<double>(ms));
    if (++pending == session.span_capacity()) {
      if (stamps) session.collect_spans(pending, stats);
      pending = 0;
    }
    return static_cast<double>(ms);
  };
  detail::RowPrecision precision;
  const std::optional<PowerSample> power_before = watch_power ? session.power_sample() : std::nullopt;
  for (auto _ : state) {
    if (rule == nullptr) {
      state.SetIterationTime(timed_launch() * 1e-3);
      continue;
    }
    detail::SamplingStop stop(*rule);
    const auto start = std::chrono::steady_clock::now();
    static const std::vector<double> no_cycles;
    while (true) {
      timed_launch();
      precision.sampling_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!stop.due(static_cast<std::int64_t>(launch_ms.size()), precision.sampling_s)) continue;
      if (stamps) session.collect_spans(pending, stats);
      pending = 0;
      if (stop.done(launch_ms, stamps ? stats.spans() : no_cycles, precision.sampling_s, precision.stop)) break;
    }
    precision.target = rule->target;
    double total_ms = 0.0;
    for (double ms : launch_ms) total_ms += ms;
    state.SetIterationTime(total_ms / static_cast<double>(launch_ms.size()) * 1e-3);  // the mean launch
  }
  if (stamps) session.collect_spans(pending, stats);
  const std::optional<PowerSample> power_after = watch_power ? session.power_sample() : std::nullopt;
  precision.time_ms = detail::estimate_mean(launch_ms);
  if (stamps) precision.cycles = detail::estimate_mean(stats.spans());
  detail::report_precision(precision);

  RunResult result;
  result.cycles = stats.mean_cycles();
  result.cycles_min = stats.min_cycles();
  result.sm_mhz = stats.sm_mhz().value_or(session.calibrated_sm_mhz());
  result.ns = cycles_to_ns(result.cycles, result.sm_mhz);
  state.counters[counters::kSmMhz] = result.sm_mhz;
  // The row's own noise, beside its results (compare and the card read it).
  if (const std::optional<double> spread = relative_spread(launch_ms)) state.counters[counters::kTimeSpread] = *spread;
  if (const std::optional<double> spread = stats.relative_spread(); spread && stamps)
    state.counters[counters::kCyclesSpread] = *spread;
  if (stamps) {
    state.counters[counters::kCycles] = result.cycles;
    state.counters[counters::kCyclesMin] = result.cycles_min;
    state.counters[counters::kNs] = result.ns;
  }
  std::string label;
  if (const std::string warning = clock_warning(stats, session.device().max_sm_clock_mhz); !warning.empty()) {
    label = warning;
    state.counters[counters::kClockFlagged] = 1;
  }
  if (power_before && power_after) {
    const PowerWindow power = power_window(*power_before, *power_after);
    if (power.power_w) state.counters[counters::kPowerW] = *power.power_w;
    if (power.limit_w) state.counters[counters::kPowerLimitW] = *power.limit_w;
    state.counters[counters::kClockReasons] = static_cast<double>(power.reasons);
    if (power.power_capped || power.thermal_capped) {
      if (power.power_capped) state.counters[counters::kPowerCapped] = 1;
      if (power.thermal_capped) state.counters[counters::kThermalCapped] = 1;
      label += (label.empty() ? "" : "; ") + std::string(power.power_capped ? "power-capped" : "") +
               (power.power_capped && power.thermal_capped ? ", " : "") +
               (power.thermal_capped ? "thermally capped" : "") + " (" + clock_reason_names(power.reasons) + ")";
    }
  }
  if (!label.empty()) state.SetLabel(label);
  result.counters = counters_of_case(launch, options);
  for (const auto& [name, value] : result.counters) state.counters[name] = value;
  return result;
}

RunResult fastest_launch(const RunResult& result) {
  RunResult fastest = result;
  fastest.cycles = result.cycles_min;
  fastest.ns = cycles_to_ns(result.cycles_min, result.sm_mhz);
  return fastest;
}

void report_per(benchmark::State& state, const RunResult& result, const std::string& unit, double count) {
  state.counters[counters::per(counters::kCycles, unit)] = result.cycles / count;
  state.counters[counters::per(counters::kNs, unit)] = result.ns / count;
}

std::vector<double> once_per_case(const std::function<std::vector<double>()>& measure) {
  detail::RunningCase* running = detail::running_case();
  if (running == nullptr) return measure();
  auto& by_args = running->counters->measured_by_args;
  auto found = by_args.find(running->args);
  if (found == by_args.end()) {
    const detail::TimedPart timed("per-case sweeps");
    found = by_args.emplace(running->args, measure()).first;
  }
  return found->second;
}

double untimed_cycles(const Launch& launch, int launches) {
  GpuSession& session = GpuSession::get();
  CycleStats stats;
  for (int i = 0; i < launches; ++i) session.untimed_launch(launch, i);
  session.collect_spans(launches, stats);
  return stats.mean_cycles();
}

const DeviceInfo& device() { return GpuSession::get().device(); }
cudaStream_t stream() { return GpuSession::get().stream(); }

}  // namespace gpubench
