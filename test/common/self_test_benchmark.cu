// The registered benchmark both harness self-tests run: a kernel that spins a known number of cycles.
#include "common/experiment.h"
#include "common/registry.h"
#include "test/common/self_test_benchmark.h"

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

// Registered at start-up, outside any family: the test binaries run no family registration.
[[maybe_unused]] const auto* registered = register_gpu_benchmark("HarnessSelfTest/Spin", {}, spin)->Iterations(20);

}  // namespace
}  // namespace gpubench::testing
