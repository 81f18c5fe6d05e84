// gpubench: every registered experiment in one binary. Our flags first, then Google Benchmark's.
#include "common/cupti/counter_selection.h"
#include "common/cupti/counter_session.h"
#include "common/cupti/metric_table.h"
#include "common/detail/gpu_session.h"
#include "common/detail/options.h"
#include "common/registry.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace {

void print_counter_table() {
  std::printf("%-26s %-10s %-60s %s\n", "counter", "unit", "Perfworks metric (x scale)", "meaning");
  for (const gpubench::MetricSpec& spec : gpubench::metric_table()) {
    std::string metric = spec.perfworks;
    if (spec.scale != 1.0) metric += " x " + std::to_string(static_cast<int>(spec.scale));
    if (spec.per != nullptr) metric += std::string(" / ") + spec.per;
    std::printf("%-26s %-10s %-60s %s\n", spec.name, spec.unit, metric.c_str(), spec.description);
  }
}

void print_help() {
  std::fputs(gpubench::options_usage().c_str(), stdout);
  benchmark::PrintDefaultHelp();
}

}  // namespace

int main(int argc, char** argv) {
  // Load every kernel at start-up: a lazily loaded kernel's first launch waits for the GPU to idle.
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
  gpubench::Options options;
  try {
    options = gpubench::parse_options(argc, argv, std::getenv("GPUBENCH_DEVICE"), std::getenv("GPUBENCH_COUNTERS"));
    gpubench::CounterSession::get().configure(gpubench::CounterSelection::parse(options.counters));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return 2;
  }
  if (options.list_counters) {
    print_counter_table();
    return 0;
  }
  // A chosen subset may hold benchmarks that need no GPU (PointerChaseCPU): without a GPU it still
  // runs, and its GPU benchmarks end in errors. The whole suite without a GPU stops at once.
  bool subset_chosen = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_filter=", 0) == 0 && arg != "--benchmark_filter=." && arg != "--benchmark_filter=all")
      subset_chosen = true;
  }
  gpubench::register_families(gpubench::Preset::kFull);
  benchmark::Initialize(&argc, argv, print_help);  // exits after --help
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  if (options.list_only) {
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  gpubench::GpuSession::select_device(options.device);
  gpubench::GpuSession::set_cold_l2(options.cold_l2);
  try {
    gpubench::GpuSession::get().add_benchmark_context();
  } catch (const gpubench::GpuUnavailable& e) {
    if (!subset_chosen) {
      std::fprintf(stderr, "gpubench: %s\n", e.what());
      return 1;
    }
    std::fprintf(stderr, "gpubench: %s; running the chosen benchmarks that need none\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpubench: %s\n", e.what());
    return 1;
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  gpubench::CounterSession::get().close();
  gpubench::GpuSession::close();
  const int failed = gpubench::failed_benchmarks();
  if (failed > 0) std::fprintf(stderr, "gpubench: %d benchmark(s) failed; see ERROR rows above\n", failed);
  return failed > 0 ? 3 : 0;
}
