// The registered benchmark both harness self-tests run: a kernel that spins a known number of cycles.
#include "common/experiment.h"
#include "common/registry.h"
#include "test/common/self_test_benchmark.h"

#include <stdexcept>
#include <string>

namespace gpubench::testing {
namespace {

constexpr long long kSpinCycles = 20000;

__global__ void spin_cycles(long long cycles, Clocks clocks) {
  const Clocks::Stamp start = clocks.begin();
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  clocks.end(start);
}

void spin(benchmark::State& state) {
  const RunResult result = run(state, [](cudaStream_t s, Clocks c) { spin_cycles<<<1, 32, 0, s>>>(kSpinCycles, c); });
  report_per(state, result, "spin", 2.0);
}

// A row that fails with a CUDA error still pending (an invalid launch configuration, not read back
// before the row gives up), and a row after it that must start clean.
void fails_with_pending_error(benchmark::State& state) {
  for (auto _ : state) {
    spin_cycles<<<1, 4096>>>(1, Clocks{});  // 4096 threads: cudaErrorInvalidConfiguration
    throw std::runtime_error("this row fails on purpose");
  }
}
void starts_clean(benchmark::State& state) {
  const cudaError_t inherited = cudaGetLastError();
  if (inherited != cudaSuccess)
    throw std::runtime_error(std::string("inherited a pending ") + cudaGetErrorName(inherited));
  spin(state);
}

// Registered at start-up, outside any family: the test binaries run no family registration.
[[maybe_unused]] const auto* registered = register_gpu_benchmark("HarnessSelfTest/Spin", {}, spin) -> Iterations(20);
[[maybe_unused]] const auto* failing =
    register_gpu_benchmark("HarnessFaultTest/1_fails", {}, fails_with_pending_error) -> Iterations(1);
[[maybe_unused]] const auto* next =
    register_gpu_benchmark("HarnessFaultTest/2_next", {}, starts_clean) -> Iterations(2);

}  // namespace
}  // namespace gpubench::testing
