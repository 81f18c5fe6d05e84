#include "common/registry.h"

#include "common/detail/running_case.h"

#include <atomic>
#include <exception>
#include <memory>
#include <optional>

namespace gpubench {
namespace detail {
namespace {
std::optional<RunningCase> g_running_case;
}  // namespace

RunningCaseScope::RunningCaseScope(RunningCase running) { g_running_case = std::move(running); }
RunningCaseScope::~RunningCaseScope() { g_running_case.reset(); }
RunningCase* running_case() { return g_running_case ? &*g_running_case : nullptr; }

namespace {
struct FamilyEntry {
  const char* name;
  FamilyRegistration registration;
};
std::vector<FamilyEntry>& families() {
  static std::vector<FamilyEntry> list;
  return list;
}
}  // namespace

bool add_family(const char* name, FamilyRegistration registration) {
  families().push_back({name, registration});
  return true;
}
}  // namespace detail

namespace {

std::atomic<int> g_failed{0};

// The wrapper every registered body runs in: the case's identity for run(), and exceptions as the
// row's error.
BenchmarkBody guarded(std::size_t arg_count, BenchmarkBody body) {
  auto counters = std::make_shared<detail::CaseCounters>();
  return [arg_count, counters, body = std::move(body)](benchmark::State& state) {
    std::vector<std::int64_t> args;
    for (std::size_t i = 0; i < arg_count; ++i) args.push_back(state.range(i));
    detail::RunningCaseScope scope({counters.get(), std::move(args)});
    try {
      body(state);
    } catch (const std::exception& e) {
      ++g_failed;
      state.SkipWithError(e.what());
    }
  };
}

Benchmark* with_arg_names(Benchmark* benchmark, const std::vector<std::string>& arg_names) {
  if (!arg_names.empty()) benchmark->ArgNames(arg_names);
  return benchmark;
}

}  // namespace

Benchmark* register_gpu_benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                                  BenchmarkBody body) {
  Benchmark* benchmark = benchmark::RegisterBenchmark(name.c_str(), guarded(arg_names.size(), std::move(body)));
  return with_arg_names(benchmark->UseManualTime(), arg_names);
}

Benchmark* register_cpu_benchmark(const std::string& name, const std::vector<std::string>& arg_names,
                                  BenchmarkBody body) {
  return with_arg_names(benchmark::RegisterBenchmark(name.c_str(), guarded(arg_names.size(), std::move(body))),
                        arg_names);
}

int failed_benchmarks() { return g_failed.load(); }

std::vector<std::string> register_families(Preset preset) {
  std::vector<std::string> names;
  for (const detail::FamilyEntry& entry : detail::families()) {
    entry.registration(Family(entry.name, preset));
    names.emplace_back(entry.name);
  }
  return names;
}

}  // namespace gpubench
