// The counters every bandwidth row carries, from the bytes one launch moves: bytes_per_second
// (Google Benchmark's, over the GPU-timed seconds), fraction_of_peak of the theoretical DRAM
// bandwidth (only where DRAM is what the row measures), and bytes_per_clock_per_sm at the SM clock
// measured in the same run. Rates are Google Benchmark rate counters, so they divide by the same
// manual time as bytes_per_second.
#pragma once

#include "common/experiment.h"

#include <benchmark/benchmark.h>

#include <cstdint>

namespace gpubench {

inline void report_bandwidth(benchmark::State& state, const RunResult& result, double bytes_per_launch,
                             bool from_dram) {
  const double bytes = bytes_per_launch * static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  const DeviceInfo& gpu = device();
  if (const double peak = gpu.theoretical_dram_gbs() * 1e9; from_dram && peak > 0)
    state.counters["fraction_of_peak"] = benchmark::Counter(bytes / peak, benchmark::Counter::kIsRate);
  if (result.sm_mhz > 0 && gpu.sm_count > 0)
    state.counters["bytes_per_clock_per_sm"] =
        benchmark::Counter(bytes / (result.sm_mhz * 1e6 * gpu.sm_count), benchmark::Counter::kIsRate);
}

}  // namespace gpubench
