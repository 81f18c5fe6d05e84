// The one place that knows which Google Benchmark gpubench was built against (1.7, 1.8, 1.9/main).
// CMake defines GPUBENCH_BENCHMARK_VERSION_MAJOR/MINOR from the package it found.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#define GPUBENCH_BENCHMARK_AT_LEAST(major, minor) \
  (GPUBENCH_BENCHMARK_VERSION_MAJOR > (major) ||  \
   (GPUBENCH_BENCHMARK_VERSION_MAJOR == (major) && GPUBENCH_BENCHMARK_VERSION_MINOR >= (minor)))

namespace gpubench {

// A benchmark that does not apply here (e.g. an instruction the architecture lacks): a skip on 1.8+,
// an error row with the same message on 1.7, which has no other way to say it.
inline void skip_benchmark(benchmark::State& state, const std::string& why) {
#if GPUBENCH_BENCHMARK_AT_LEAST(1, 8)
  state.SkipWithMessage(why);
#else
  state.SkipWithError(("skipped: " + why).c_str());
#endif
}

// Whether a reported run ended in an error, and its message.
inline bool run_failed(const benchmark::BenchmarkReporter::Run& run) {
#if GPUBENCH_BENCHMARK_AT_LEAST(1, 8)
  return run.skipped == benchmark::internal::SkippedWithError;
#else
  return run.error_occurred;
#endif
}

inline std::string run_message(const benchmark::BenchmarkReporter::Run& run) {
#if GPUBENCH_BENCHMARK_AT_LEAST(1, 8)
  return run.skip_message;
#else
  return run.error_message;
#endif
}

}  // namespace gpubench
