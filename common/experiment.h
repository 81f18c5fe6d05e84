// What an experiment uses to measure: run() times a launch with CUDA events (manual time), collects
// the clock64 span the kernel stamps, the SM clock it ran at, and, outside the timed loop, the
// hardware counters of one more launch. Results are returned; options are passed per call.
#pragma once

#include "common/clocks.h"
#include "common/device_info.h"
#include "common/launch.h"
#include "common/traffic.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

struct RunOptions {
  RunOptions(std::vector<std::string> default_counters = {}) : counters(std::move(default_counters)) {}  // NOLINT

  // Hardware counters reported by default (names from common/cupti/metric_table.cpp); the user's
  // --gpubench_counters replaces or extends them.
  std::vector<std::string> counters;
  // The least traffic the launch could move: adds <bytes>_per_element and *_normalized counters.
  std::optional<IdealTraffic> ideal_traffic;
  // Profile in the cache state the timed launches saw instead of after an L2 scrub (for counters
  // that must say which level served the timed loads). Before each pass `rewarm` restores that
  // state; without one, one more launch does.
  bool profile_warm = false;
  std::function<void(cudaStream_t)> rewarm;
  // Empty L2 before every launch (true) or leave the previous launch's data in it (false) whatever
  // --gpubench_cold_l2 says: for rows whose answer is the cold or the hot case.
  std::optional<bool> cold_l2;
  // False for a launch with no kernel of ours (cudaMemcpyAsync): time and counters only, no cycles.
  bool stamps_cycles = true;
};

struct RunResult {
  double cycles = 0.0;  // mean clock64 span per launch
  double cycles_min = 0.0;
  double sm_mhz = 0.0;                     // measured over the timed launches
  double ns = 0.0;                         // cycles at sm_mhz
  std::map<std::string, double> counters;  // hardware and derived counters, as reported
  // A counter's value, when it was collected.
  std::optional<double> counter(const std::string& name) const;
};

// Times `launch` once per iteration of `state` and reports cycles, cycles_min, ns, sm_mhz and the
// counters as user counters. Counters are profiled once per benchmark case (Google Benchmark's
// later trials and repetitions of the same arguments reuse them). Throws on CUDA errors; the
// registration turns that into an error row.
RunResult run(benchmark::State& state, const Launch& launch, const RunOptions& options = {});

// The result as its fastest timed launch: a latency row's answer. Some launches of a chain run ~2.8% longer
// in clock64 cycles (block 0 waits), in a share that moves from run to run, so the mean moved 2.7% between
// identical runs where the fastest moved 0.04% (4 H200s, docs/results/2026-11-28-full-node-pair).
RunResult fastest_launch(const RunResult& result);

// <quantity>_per_<unit> for the result's cycles and ns, e.g. cycles_per_path.
void report_per(benchmark::State& state, const RunResult& result, const std::string& unit, double count);

// Mean cycles of a few untimed launches: a baseline measured in the same run.
double untimed_cycles(const Launch& launch, int launches = 5);

// Values measured once per benchmark case, as the counters are: Google Benchmark calls a case's
// function once per trial while it grows the iteration count, and an untimed sweep (every SM, say)
// need not repeat with it. Outside a registered benchmark, `measure` runs every time.
std::vector<double> once_per_case(const std::function<std::vector<double>()>& measure);

// Whether the run was interrupted (Ctrl-C, SIGTERM, its deadline): a row that loops on its own (the burn) stops.
bool run_interrupted();

// The GPU this run measures, and the stream every experiment enqueues on.
const DeviceInfo& device();
cudaStream_t stream();

}  // namespace gpubench
