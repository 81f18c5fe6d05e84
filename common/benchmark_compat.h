// Differences between the Google Benchmark versions gpubench supports (1.7 and 1.8+).
#pragma once

#include "common/build_config.h"
#include <benchmark/benchmark.h>

#include <string>

namespace gpubench {

inline constexpr bool kBenchmarkHasSkipWithMessage =
    GPUBENCH_BENCHMARK_VERSION_MAJOR > 1 || GPUBENCH_BENCHMARK_VERSION_MINOR >= 8;

// A benchmark that does not apply here (e.g. an instruction the architecture lacks): a skip on 1.8+,
// an error row with the same message on 1.7, which has no other way to say it.
inline void skip_benchmark(benchmark::State& state, const std::string& why) {
#if GPUBENCH_BENCHMARK_VERSION_MAJOR > 1 || GPUBENCH_BENCHMARK_VERSION_MINOR >= 8
  state.SkipWithMessage(why);
#else
  state.SkipWithError(("skipped: " + why).c_str());
#endif
}

// Whether a reported run ended in an error, and its message.
inline bool run_failed(const benchmark::BenchmarkReporter::Run& run) {
#if GPUBENCH_BENCHMARK_VERSION_MAJOR > 1 || GPUBENCH_BENCHMARK_VERSION_MINOR >= 8
  return run.skipped == benchmark::internal::SkippedWithError;
#else
  return run.error_occurred;
#endif
}

inline std::string run_message(const benchmark::BenchmarkReporter::Run& run) {
#if GPUBENCH_BENCHMARK_VERSION_MAJOR > 1 || GPUBENCH_BENCHMARK_VERSION_MINOR >= 8
  return run.skip_message;
#else
  return run.error_message;
#endif
}

}  // namespace gpubench
