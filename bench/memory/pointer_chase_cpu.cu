//! PointerChaseCPU: the same shuffled chain chased on the host CPU, so GPU and CPU load latency
//! can be plotted against working-set size together. No GPU involved.
#include "bench/memory/chase/pointer_chain.h"
#include "common/arg_cache.h"
#include "common/counter_catalog.h"
#include "common/registry.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>

namespace gpubench {
namespace {

constexpr std::size_t kStrideBytes = 64;  // one CPU cache line per node
constexpr std::size_t kLoadsPerIteration = 1 << 16;

ArgCache<std::vector<std::uint32_t>>& chains() {
  static ArgCache<std::vector<std::uint32_t>> cache;
  return cache;
}

void chase_on_host(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(arg(state, "bytes"));
  const std::vector<std::uint32_t>& words =
      chains().get({arg(state, "bytes")}, [&] { return chase_words(make_chase_chain(bytes, kStrideBytes, 1)); });
  std::uint32_t at = chase(words, 0, bytes / kStrideBytes);  // warm: every node once
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    at = chase(words, at, kLoadsPerIteration);
    benchmark::DoNotOptimize(at);
  }
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  state.counters["ns_per_load"] = elapsed.count() / (static_cast<double>(state.iterations()) * kLoadsPerIteration);
}
GPUBENCH_FAMILY(PointerChaseCPU) {
  auto* rows = family.cpu("PointerChaseCPU", {"bytes"}, chase_on_host)->UseRealTime();
  if (family.preset() != Preset::kFull) {
    for (std::int64_t bytes :
         {std::int64_t{16} << 10, std::int64_t{1} << 20, std::int64_t{16} << 20, std::int64_t{256} << 20})
      add_point(rows, {{"bytes", bytes}});
  } else {
    for (std::int64_t bytes = 4 << 10; bytes <= 256 << 20; bytes *= 2) add_point(rows, {{"bytes", bytes}});
  }
}

}  // namespace
}  // namespace gpubench
